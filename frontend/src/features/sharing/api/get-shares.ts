import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { Share } from '@/types/api';

export const SHARES_QUERY_KEY = ['shares'] as const;

/** Whose shares to list: a run's (alone or in comparisons) or an experiment's. */
export type ShareFilter = { run?: string; experiment?: string };

/** GET /api/shares/?run=&experiment=: the workspace's links, newest first. */
export const getShares = ({ filter, signal }: { filter: ShareFilter; signal?: AbortSignal }): Promise<Share[]> =>
  api.get<Share[]>(`/api/shares/${toQueryString({ run: filter.run, experiment: filter.experiment })}`, { signal });

export const getSharesQueryOptions = (filter: ShareFilter) =>
  queryOptions({
    queryKey: [...SHARES_QUERY_KEY, filter],
    queryFn: ({ signal }) => getShares({ filter, signal }),
  });

type UseSharesOptions = { filter: ShareFilter; queryConfig?: QueryConfig<typeof getSharesQueryOptions> };

export const useShares = ({ filter, queryConfig }: UseSharesOptions) =>
  useQuery({ ...getSharesQueryOptions(filter), ...queryConfig });
