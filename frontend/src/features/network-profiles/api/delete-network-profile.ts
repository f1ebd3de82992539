import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';

import { networkProfileQueryKey } from './get-network-profile';
import { NETWORK_PROFILES_QUERY_KEY } from './get-network-profiles';

/** DELETE /api/network-profiles/{id}/ → 204; built-ins answer 403 network_profile_read_only. */
export const deleteNetworkProfile = ({ profileId }: { profileId: string }): Promise<void> =>
  api.delete(`/api/network-profiles/${encodeURIComponent(profileId)}/`);

type UseDeleteNetworkProfileOptions = { mutationConfig?: MutationConfig<typeof deleteNetworkProfile> };

export const useDeleteNetworkProfile = ({ mutationConfig }: UseDeleteNetworkProfileOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      const [, { profileId }] = args;
      queryClient.removeQueries({ queryKey: networkProfileQueryKey(profileId) });
      await queryClient.invalidateQueries({ queryKey: [...NETWORK_PROFILES_QUERY_KEY, 'list'] });
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: deleteNetworkProfile,
  });
};
