import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { NetworkProfileDetail } from '@/types/api';

import { NETWORK_PROFILES_QUERY_KEY } from './get-network-profiles';

export const networkProfileQueryKey = (profileId: string) => [...NETWORK_PROFILES_QUERY_KEY, profileId] as const;

/** GET /api/network-profiles/{id}/: the profile and what its delay distributions deliver. */
export const getNetworkProfile = ({
  profileId,
  signal,
}: {
  profileId: string;
  signal?: AbortSignal;
}): Promise<NetworkProfileDetail> =>
  api.get<NetworkProfileDetail>(`/api/network-profiles/${encodeURIComponent(profileId)}/`, { signal });

export const getNetworkProfileQueryOptions = (profileId: string) =>
  queryOptions({
    queryKey: networkProfileQueryKey(profileId),
    queryFn: ({ signal }) => getNetworkProfile({ profileId, signal }),
  });

type UseNetworkProfileOptions = {
  profileId: string;
  queryConfig?: QueryConfig<typeof getNetworkProfileQueryOptions>;
};

export const useNetworkProfile = ({ profileId, queryConfig }: UseNetworkProfileOptions) =>
  useQuery({ ...getNetworkProfileQueryOptions(profileId), ...queryConfig });
