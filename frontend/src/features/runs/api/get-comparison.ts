import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { RunComparison } from '@/types/api';

import { SIGNED_IN_RESULTS_API, useResultsApi } from './results-api';

/** The server compares 2 to 8 runs (results.services.COMPARE_RUNS_MAX). */
export const COMPARE_RUNS_MIN = 2;
export const COMPARE_RUNS_MAX = 8;

/**
 * GET /api/compare/?run=<id>&run=<id>…: the runs' statistics side by side, and every pair
 * of them whose conditions agree (difference of means with a bootstrap interval, Mann-Whitney).
 */
export const getComparison = ({
  runIds,
  apiBase = SIGNED_IN_RESULTS_API,
  signal,
}: {
  runIds: readonly string[];
  apiBase?: string;
  signal?: AbortSignal;
}): Promise<RunComparison> =>
  api.get<RunComparison>(`${apiBase}/compare/${toQueryString({ run: runIds })}`, { signal });

export const getComparisonQueryOptions = (runIds: readonly string[], apiBase: string = SIGNED_IN_RESULTS_API) =>
  queryOptions({
    queryKey: ['compare', apiBase, ...runIds],
    queryFn: ({ signal }) => getComparison({ runIds, apiBase, signal }),
    enabled: runIds.length >= COMPARE_RUNS_MIN && runIds.length <= COMPARE_RUNS_MAX,
    // Completed runs never change, and the bootstrap is seeded: the answer is fixed.
    staleTime: Number.POSITIVE_INFINITY,
  });

type UseComparisonOptions = {
  runIds: readonly string[];
  queryConfig?: QueryConfig<typeof getComparisonQueryOptions>;
};

export const useComparison = ({ runIds, queryConfig }: UseComparisonOptions) =>
  useQuery({ ...getComparisonQueryOptions(runIds, useResultsApi()), ...queryConfig });
