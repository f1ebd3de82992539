import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';

import { ME_QUERY_KEY } from './get-me';

/** POST /api/auth/logout/ → 204. */
export const logout = (): Promise<void> => api.post<void>('/api/auth/logout/');

type UseLogoutOptions = { mutationConfig?: MutationConfig<typeof logout> };

export const useLogout = ({ mutationConfig }: UseLogoutOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: (...args) => {
      // Drop everything cached for this user before anyone else signs in here.
      queryClient.clear();
      queryClient.setQueryData(ME_QUERY_KEY, null);
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: logout,
  });
};
