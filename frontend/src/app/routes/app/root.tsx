import { Link, NavLink, Outlet, useNavigate } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { paths } from '@/config/paths';
import { useLogout } from '@/features/auth/api/logout';
import { RequireAuth } from '@/features/auth/components/require-auth';
import type { User } from '@/types/api';

const AppLayout = ({ user }: { user: User }) => {
  const navigate = useNavigate();
  const logout = useLogout({
    mutationConfig: { onSuccess: () => void navigate(paths.login.getHref(), { replace: true }) },
  });

  return (
    <>
      <header className="app-header">
        <Link to={paths.home.getHref()} className="brand">
          IoTSecBench
        </Link>
        <nav aria-label="Main" className="main-nav">
          <NavLink to={paths.home.getHref()} end>
            Home
          </NavLink>
          <NavLink to={paths.experiments.getHref()}>
            Experiments
          </NavLink>
          <NavLink to={paths.compare.getHref()}>Compare</NavLink>
          <NavLink to={paths.devices.getHref()}>Devices</NavLink>
          <NavLink to={paths.power.getHref()}>Power</NavLink>
          <NavLink to={paths.networkProfiles.getHref()}>Network</NavLink>
          <NavLink to={paths.team.getHref()}>Team</NavLink>
          <NavLink to={paths.account.getHref()}>Account</NavLink>
        </nav>
        <div className="user-menu">
          <span className="muted">
            Signed in as <strong>{user.username}</strong>
          </span>
          <button
            type="button"
            className="button button-small"
            onClick={() => logout.mutate(undefined)}
            disabled={logout.isPending}
          >
            Sign out
          </button>
        </div>
      </header>
      <main className="page">
        {logout.isError ? <ErrorAlert error={logout.error} /> : null}
        <Outlet />
      </main>
    </>
  );
};

const AppRoot = () => <RequireAuth>{(user) => <AppLayout user={user} />}</RequireAuth>;

export default AppRoot;
