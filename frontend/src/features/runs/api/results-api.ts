import { queryOptions, type UseQueryResult } from '@tanstack/react-query';
import { createContext, useContext } from 'react';

import { paths } from '@/config/paths';
import { api } from '@/lib/api-client';

import { runQueryKey } from './get-run';

/** The signed-in API: `/api/runs/{id}/statistics/`, `/api/compare/`… */
export const SIGNED_IN_RESULTS_API = '/api';

/**
 * Where the result views read from and what they may link to. A shared link's page
 * provides its public API (`/api/public/shares/<token>`), whose answers have the same
 * shapes under the share's ids (docs/sharing.md), so every results view works there
 * unchanged; it is read-only and links only within the shared page.
 */
export type ResultsSource = {
  apiBase: string;
  /** Where a run's name leads; null: it is plain text. */
  runHref: ((runId: string) => string) | null;
  /** A shared page: no edits, no exports, no links into the workspace. */
  shared: boolean;
};

export const SIGNED_IN_RESULTS: ResultsSource = {
  apiBase: SIGNED_IN_RESULTS_API,
  runHref: paths.run.getHref,
  shared: false,
};

export const ResultsSourceContext = createContext<ResultsSource>(SIGNED_IN_RESULTS);

export const useResultsSource = () => useContext(ResultsSourceContext);

/** The API base of the results views in this part of the page. */
export const useResultsApi = () => useResultsSource().apiBase;

/**
 * GET `{apiBase}/runs/{id}/{endpoint}/{search}`: one of a completed run's results. Kept
 * for good: a completed run's records never change. `search` is part of the cache key.
 */
export const runResultQueryOptions = <T,>({
  runId,
  endpoint,
  apiBase = SIGNED_IN_RESULTS_API,
  search = '',
}: {
  runId: string;
  endpoint: string;
  apiBase?: string;
  search?: string;
}) =>
  queryOptions({
    queryKey: [...runQueryKey(runId), endpoint, search, apiBase],
    queryFn: ({ signal }) =>
      api.get<T>(`${apiBase}/runs/${encodeURIComponent(runId)}/${endpoint}/${search}`, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });

/** The results of several runs at once (the compare page). */
export type RunResults<T> = {
  /** In the order of the run ids; a run still loading, or whose result failed, is left out. */
  data: T[];
  isPending: boolean;
  /** The first error of any run: the others still show. */
  error: Error | null;
};

// Module-level, so TanStack Query keeps the combined result until a query changes.
export const combineRunResults = <T,>(results: readonly UseQueryResult<T>[]): RunResults<T> => ({
  data: results.flatMap((result) => (result.data ? [result.data] : [])),
  isPending: results.some((result) => result.isPending),
  error: results.find((result) => result.error)?.error ?? null,
});

