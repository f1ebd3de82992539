import { ConfirmActionButton } from '@/components/ui/confirm-action-button';
import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDateTime } from '@/lib/format';
import type { Member } from '@/types/api';

import { useMembers } from '../api/get-members';
import { useRemoveMember } from '../api/remove-member';

const RemoveMemberButton = ({ member, isYou }: { member: Member; isYou: boolean }) => {
  const remove = useRemoveMember();
  return (
    <ConfirmActionButton
      label={isYou ? 'Leave' : 'Remove'}
      question={
        isYou
          ? 'Leave this workspace? You lose access to its experiments at once.'
          : `Remove ${member.username}? They lose access to this workspace at once.`
      }
      confirmLabel={isYou ? 'Yes, leave' : 'Yes, remove'}
      onConfirm={() => remove.mutate({ membershipId: member.id })}
      isPending={remove.isPending}
      error={remove.isError ? remove.error : null}
    />
  );
};

type MembersPanelProps = { userId: number; isOwner: boolean };

/** The workspace's members and roles; owners may remove anyone (the last owner stays). */
export const MembersPanel = ({ userId, isOwner }: MembersPanelProps) => {
  const members = useMembers();
  if (members.isPending) return <Loading label="Loading the members…" />;
  if (members.isError) return <ErrorAlert error={members.error} />;
  return (
    <ScrollTable label="Members">
      <table className="table">
        <caption className="visually-hidden">Members</caption>
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            {isOwner ? (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {members.data.map((member) => (
            <tr key={member.id}>
              <th scope="row" className="break-anywhere">
                {member.username}
                {member.user_id === userId ? <span className="muted"> (you)</span> : null}
              </th>
              <td>{member.role === 'owner' ? 'Owner' : 'Member'}</td>
              <td>{formatDateTime(member.joined_at)}</td>
              {isOwner ? (
                <td>
                  <RemoveMemberButton member={member} isYou={member.user_id === userId} />
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
};
