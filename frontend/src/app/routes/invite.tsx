import { useNavigate, useParams } from 'react-router';

import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';
import { AcceptInvitation } from '@/features/account/components/accept-invitation';
import { useMe } from '@/features/auth/api/get-me';

/** An invitation link (/invite/:token): opens signed out too, outside the app shell. */
const InviteRoute = () => {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const me = useMe();
  if (me.isPending) return <Loading />;
  return (
    <main className="page page-narrow">
      <p className="brand brand-large">IoTSecBench</p>
      <h1>Join a workspace</h1>
      <AcceptInvitation
        token={token}
        username={me.data?.username ?? null}
        loginHref={paths.login.getHref(paths.invite.getHref(token))}
        onJoined={() => void navigate(paths.experiments.getHref(), { replace: true })}
      />
    </main>
  );
};

export default InviteRoute;
