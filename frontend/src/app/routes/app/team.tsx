import { Loading } from '@/components/ui/loading';
import { useMembers } from '@/features/account/api/get-members';
import { InvitePanel } from '@/features/account/components/invite-panel';
import { MembersPanel } from '@/features/account/components/members-panel';
import { WorkspaceSwitcher } from '@/features/account/components/workspace-switcher';
import { useMe } from '@/features/auth/api/get-me';

const TeamRoute = () => {
  const me = useMe();
  const members = useMembers();
  if (!me.data) return <Loading />;
  const isOwner = members.data?.some((m) => m.user_id === me.data?.id && m.role === 'owner') ?? false;
  return (
    <>
      <h1>Team</h1>
      <p>
        Workspace <strong className="break-anywhere">{me.data.workspace.name}</strong>: its members see and run its
        devices and experiments.
      </p>
      <section aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <MembersPanel userId={me.data.id} isOwner={isOwner} />
      </section>
      {isOwner ? (
        <section aria-labelledby="invite-title">
          <h2 id="invite-title">Invite a colleague</h2>
          <InvitePanel />
        </section>
      ) : (
        <p className="muted">Only an owner can invite or remove people.</p>
      )}
      <WorkspaceSwitcher />
    </>
  );
};

export default TeamRoute;
