import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, isApiError } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { Run, RunStatus } from '@/types/api';

/** How often an unfinished run is re-fetched: live enough for progress bars, light on the server. */
export const RUN_POLL_INTERVAL_MS = 1000;

// The backend's experiments.models: queued → preparing → running → ingesting → done, partial
// or failed, or cancelled. Only a finished run stops changing (but for records an agent
// uploads late, which can move a failed run to partial).
const FINISHED_STATUSES: ReadonlySet<RunStatus> = new Set(['done', 'partial', 'failed', 'cancelled']);

export const isRunFinished = (status: RunStatus): boolean => FINISHED_STATUSES.has(status);
/** Runs whose records can be analysed: complete, or partial (the page says so). */
export const hasMeasuredResults = (status: RunStatus): boolean => status === 'done' || status === 'partial';
/** …and a cancelled run whose devices stored what they measured before they stopped. */
export const showsMeasuredResults = (run: Pick<Run, 'status' | 'devices'>): boolean =>
  hasMeasuredResults(run.status) ||
  (run.status === 'cancelled' && run.devices.some((device) => device.records_ingested > 0));
/** POST /api/runs/{id}/cancel/ accepts these (409 run_not_cancellable otherwise). */
export const isRunCancellable = (status: RunStatus): boolean => !FINISHED_STATUSES.has(status);
/** POST /api/runs/{id}/retry/ accepts these (409 run_not_retryable otherwise). */
export const isRunRetryable = (status: RunStatus): boolean =>
  status === 'failed' || status === 'partial' || status === 'cancelled';

export const runQueryKey = (runId: string) => ['runs', runId] as const;

/** GET /api/runs/{id}/ */
export const getRun = ({ runId, signal }: { runId: string; signal?: AbortSignal }): Promise<Run> =>
  api.get<Run>(`/api/runs/${encodeURIComponent(runId)}/`, { signal });

export const getRunQueryOptions = (runId: string) =>
  queryOptions({
    queryKey: runQueryKey(runId),
    queryFn: ({ signal }) => getRun({ runId, signal }),
    // Poll until the run reaches a final state. A 4xx (not found, signed out) will not
    // fix itself, so stop then too; keep polling through transient 5xx/network errors.
    refetchInterval: (query) => {
      const { data, error } = query.state;
      if (data && isRunFinished(data.status)) return false;
      if (isApiError(error) && error.status >= 400 && error.status < 500) return false;
      return RUN_POLL_INTERVAL_MS;
    },
    staleTime: 0,
  });

type UseRunOptions = { runId: string; queryConfig?: QueryConfig<typeof getRunQueryOptions> };

export const useRun = ({ runId, queryConfig }: UseRunOptions) =>
  useQuery({ ...getRunQueryOptions(runId), ...queryConfig });
