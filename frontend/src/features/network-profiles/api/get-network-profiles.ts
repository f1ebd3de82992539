import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { NetworkProfile, NetworkProfileKind } from '@/types/api';

/** The root of every network-profile query: invalidating it refreshes lists and profiles. */
export const NETWORK_PROFILES_QUERY_KEY = ['network-profiles'] as const;

export type NetworkProfileFilters = { kind?: NetworkProfileKind; search?: string };

export const networkProfilesListQueryKey = (filters: NetworkProfileFilters = {}) =>
  [...NETWORK_PROFILES_QUERY_KEY, 'list', filters] as const;

/**
 * GET /api/network-profiles/?kind=&search=: the workspace's own profiles (by name), then
 * the built-in catalogue in its order (SRUP 1–10, then the measured tables by name).
 */
export const getNetworkProfiles = ({
  filters = {},
  signal,
}: {
  filters?: NetworkProfileFilters;
  signal?: AbortSignal;
}): Promise<NetworkProfile[]> =>
  api.get<NetworkProfile[]>(`/api/network-profiles/${toQueryString(filters)}`, { signal });

export const getNetworkProfilesQueryOptions = (filters: NetworkProfileFilters = {}) =>
  queryOptions({
    queryKey: networkProfilesListQueryKey(filters),
    queryFn: ({ signal }) => getNetworkProfiles({ filters, signal }),
    // While a new search is on its way, keep the last rows instead of flashing "Loading…".
    placeholderData: keepPreviousData,
  });

type UseNetworkProfilesOptions = {
  filters?: NetworkProfileFilters;
  queryConfig?: QueryConfig<typeof getNetworkProfilesQueryOptions>;
};

export const useNetworkProfiles = ({ filters, queryConfig }: UseNetworkProfilesOptions = {}) =>
  useQuery({ ...getNetworkProfilesQueryOptions(filters), ...queryConfig });
