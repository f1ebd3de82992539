import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { NetworkProfileCopy, NetworkProfileDetail } from '@/types/api';

import { networkProfileQueryKey } from './get-network-profile';
import { NETWORK_PROFILES_QUERY_KEY } from './get-network-profiles';

/**
 * POST /api/network-profiles/{id}/copy/ → 201, a profile of the workspace with the same spec,
 * description and citation. Without a name the server picks “<name> (copy)”, “(copy 2)”, …
 */
export const copyNetworkProfile = ({
  profileId,
  data = {},
}: {
  profileId: string;
  data?: NetworkProfileCopy;
}): Promise<NetworkProfileDetail> =>
  api.post<NetworkProfileDetail>(`/api/network-profiles/${encodeURIComponent(profileId)}/copy/`, data);

type UseCopyNetworkProfileOptions = { mutationConfig?: MutationConfig<typeof copyNetworkProfile> };

export const useCopyNetworkProfile = ({ mutationConfig }: UseCopyNetworkProfileOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      queryClient.setQueryData(networkProfileQueryKey(args[0].id), args[0]);
      await queryClient.invalidateQueries({ queryKey: [...NETWORK_PROFILES_QUERY_KEY, 'list'] });
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: copyNetworkProfile,
  });
};
