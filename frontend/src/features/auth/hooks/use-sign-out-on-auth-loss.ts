import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';

import { setUnauthenticatedHandler } from '@/lib/api-client';

import { ME_QUERY_KEY } from '../api/get-me';

/**
 * When any request answers `not_authenticated` (the session expired or was revoked),
 * forget the user. <RequireAuth> then sends the browser to /login?redirectTo=<here>.
 */
export const useSignOutOnAuthLoss = () => {
  const queryClient = useQueryClient();
  useEffect(
    () => setUnauthenticatedHandler(() => queryClient.setQueryData(ME_QUERY_KEY, null)),
    [queryClient],
  );
};
