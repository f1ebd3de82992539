import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';
import type { User } from '@/types/api';

import { useMe } from '../api/get-me';

type RequireAuthProps = { children: (user: User) => ReactNode };

/** Renders its children for a signed-in user; otherwise sends the browser to /login. */
export const RequireAuth = ({ children }: RequireAuthProps) => {
  const me = useMe();
  const location = useLocation();

  if (me.isPending) return <Loading />;
  if (me.isError) return <ErrorAlert error={me.error} />;
  if (!me.data) {
    const here = `${location.pathname}${location.search}`;
    return <Navigate to={paths.login.getHref(here === '/' ? null : here)} replace />;
  }
  return children(me.data);
};
