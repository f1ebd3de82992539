import { useQueries, useQuery } from '@tanstack/react-query';

import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { RunDistribution } from '@/types/api';

import { combineRunResults, runResultQueryOptions, SIGNED_IN_RESULTS_API, useResultsApi } from './results-api';

/** Histogram bins: enough shape for a chart a few hundred pixels wide; the server allows 1–1000. */
export const DISTRIBUTION_BINS = 100;

/**
 * What to plot: the bins, and a value range (ms) shared by every device; null ends are the
 * server's default (`range=data`: the smallest and largest value).
 */
export type DistributionQuery = { bins: number; minMs: number | null; maxMs: number | null };

export const DEFAULT_DISTRIBUTION_QUERY: DistributionQuery = { bins: DISTRIBUTION_BINS, minMs: null, maxMs: null };

/**
 * GET /api/runs/{id}/distribution/?bins=&min_ms=&max_ms=: plot data per device (histogram,
 * box, violin density, RTT over the sequence), never raw records. Messaging runs only.
 */
export const getRunDistributionQueryOptions = (
  runId: string,
  query: DistributionQuery = DEFAULT_DISTRIBUTION_QUERY,
  apiBase: string = SIGNED_IN_RESULTS_API,
) =>
  runResultQueryOptions<RunDistribution>({
    runId,
    endpoint: 'distribution',
    apiBase,
    search: toQueryString({ bins: query.bins, min_ms: query.minMs, max_ms: query.maxMs }),
  });

type UseRunDistributionOptions = {
  runId: string;
  query?: DistributionQuery;
  queryConfig?: QueryConfig<typeof getRunDistributionQueryOptions>;
};

export const useRunDistribution = ({ runId, query, queryConfig }: UseRunDistributionOptions) =>
  useQuery({ ...getRunDistributionQueryOptions(runId, query, useResultsApi()), ...queryConfig });

/** The distributions of several runs over one query (the compare page's shared axis). */
export const useRunDistributions = ({ runIds, query }: { runIds: readonly string[]; query: DistributionQuery }) => {
  const apiBase = useResultsApi();
  return useQueries({
    queries: runIds.map((runId) => getRunDistributionQueryOptions(runId, query, apiBase)),
    combine: combineRunResults<RunDistribution>,
  });
};
