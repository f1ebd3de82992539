import { Navigate, useNavigate, useSearchParams } from 'react-router';

import { Loading } from '@/components/ui/loading';
import { useMe } from '@/features/auth/api/get-me';
import { LoginForm } from '@/features/auth/components/login-form';
import { safeRedirectPath } from '@/features/auth/components/safe-redirect';

const LoginRoute = () => {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const me = useMe();
  const redirectTo = safeRedirectPath(searchParams.get('redirectTo'));

  if (me.isPending) return <Loading />;
  if (me.data) return <Navigate to={redirectTo} replace />;

  return (
    <main className="page page-narrow">
      <p className="brand brand-large">IoTSecBench</p>
      <h1>Sign in</h1>
      <LoginForm onSuccess={() => void navigate(redirectTo, { replace: true })} />
    </main>
  );
};

export default LoginRoute;
