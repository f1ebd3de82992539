import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { RunStatistics } from '@/types/api';

import { runQueryKey } from './get-run';

/**
 * GET /api/runs/{id}/statistics/: counts and round-trip statistics per device and all
 * devices. Messaging runs only: the others answer 400 run_has_no_round_trips.
 */
export const getRunStatistics = ({ runId, signal }: { runId: string; signal?: AbortSignal }): Promise<RunStatistics> =>
  api.get<RunStatistics>(`/api/runs/${encodeURIComponent(runId)}/statistics/`, { signal });

export const getRunStatisticsQueryOptions = (runId: string) =>
  queryOptions({
    queryKey: [...runQueryKey(runId), 'statistics'],
    queryFn: ({ signal }) => getRunStatistics({ runId, signal }),
    // Only fetched for completed runs, whose records never change.
    staleTime: Number.POSITIVE_INFINITY,
  });

type UseRunStatisticsOptions = { runId: string; queryConfig?: QueryConfig<typeof getRunStatisticsQueryOptions> };

export const useRunStatistics = ({ runId, queryConfig }: UseRunStatisticsOptions) =>
  useQuery({ ...getRunStatisticsQueryOptions(runId), ...queryConfig });
