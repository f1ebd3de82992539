import { queryOptions, useQueries, useQuery, type UseQueryResult } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { RunDistribution } from '@/types/api';

import { runQueryKey } from './get-run';

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
export const getRunDistribution = ({
  runId,
  query,
  signal,
}: {
  runId: string;
  query: DistributionQuery;
  signal?: AbortSignal;
}): Promise<RunDistribution> =>
  api.get<RunDistribution>(
    `/api/runs/${encodeURIComponent(runId)}/distribution/${toQueryString({
      bins: query.bins,
      min_ms: query.minMs,
      max_ms: query.maxMs,
    })}`,
    { signal },
  );

export const getRunDistributionQueryOptions = (runId: string, query: DistributionQuery = DEFAULT_DISTRIBUTION_QUERY) =>
  queryOptions({
    queryKey: [...runQueryKey(runId), 'distribution', query],
    queryFn: ({ signal }) => getRunDistribution({ runId, query, signal }),
    // Only fetched for completed runs, whose records never change.
    staleTime: Number.POSITIVE_INFINITY,
  });

type UseRunDistributionOptions = {
  runId: string;
  query?: DistributionQuery;
  queryConfig?: QueryConfig<typeof getRunDistributionQueryOptions>;
};

export const useRunDistribution = ({ runId, query, queryConfig }: UseRunDistributionOptions) =>
  useQuery({ ...getRunDistributionQueryOptions(runId, query), ...queryConfig });

export type RunDistributions = {
  /** In the order of the run ids; a run still loading is left out. */
  data: RunDistribution[];
  isPending: boolean;
  error: Error | null;
};

// Module-level, so TanStack Query keeps the combined result until a query changes.
const combineDistributions = (results: readonly UseQueryResult<RunDistribution>[]): RunDistributions => ({
  data: results.flatMap((result) => (result.data ? [result.data] : [])),
  isPending: results.some((result) => result.isPending),
  error: results.find((result) => result.error)?.error ?? null,
});

/** The distributions of several runs over one query (the compare page's shared axis). */
export const useRunDistributions = ({ runIds, query }: { runIds: readonly string[]; query: DistributionQuery }) =>
  useQueries({
    queries: runIds.map((runId) => getRunDistributionQueryOptions(runId, query)),
    combine: combineDistributions,
  });
