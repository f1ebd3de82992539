import { useQueries, useQuery } from '@tanstack/react-query';

import type { QueryConfig } from '@/lib/react-query';
import type { RunSizes } from '@/types/api';

import { combineRunResults, runResultQueryOptions, SIGNED_IN_RESULTS_API, useResultsApi } from './results-api';

/** The run delivered nothing: no wire bytes were measured (results.errors). */
export const NO_DELIVERED_MESSAGES_CODE = 'run_has_no_delivered_messages';

/**
 * GET /api/runs/{id}/sizes/: one message of the run byte by byte (measured wire bytes, the
 * parts the run's parameters explain, TLS as the measured rest, assumed link/IP/TCP headers).
 * Messaging runs only (400 run_has_no_round_trips otherwise); 400
 * run_has_no_delivered_messages when nothing was delivered.
 */
export const getRunSizesQueryOptions = (runId: string, apiBase: string = SIGNED_IN_RESULTS_API) =>
  runResultQueryOptions<RunSizes>({ runId, endpoint: 'sizes', apiBase });

type UseRunSizesOptions = { runId: string; queryConfig?: QueryConfig<typeof getRunSizesQueryOptions> };

export const useRunSizes = ({ runId, queryConfig }: UseRunSizesOptions) =>
  useQuery({ ...getRunSizesQueryOptions(runId, useResultsApi()), ...queryConfig });

/** The breakdowns of several runs (the compare page: one bar per run). */
export const useRunSizesList = ({ runIds }: { runIds: readonly string[] }) => {
  const apiBase = useResultsApi();
  return useQueries({
    queries: runIds.map((runId) => getRunSizesQueryOptions(runId, apiBase)),
    combine: combineRunResults<RunSizes>,
  });
};
