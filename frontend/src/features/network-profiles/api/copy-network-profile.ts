import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
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

export const useCopyNetworkProfile = ({ mutationConfig }: UseCopyNetworkProfileOptions = {}) =>
  useInvalidatingMutation({
    mutationFn: copyNetworkProfile,
    invalidates: [[...NETWORK_PROFILES_QUERY_KEY, 'list']],
    update: (queryClient, profile) => queryClient.setQueryData(networkProfileQueryKey(profile.id), profile),
    mutationConfig,
  });
