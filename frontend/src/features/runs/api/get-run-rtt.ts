import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { RunRtt } from '@/types/api';

import { runQueryKey } from './get-run';

/** GET /api/runs/{id}/rtt/: raw round-trip times per device; empty until the run completes. */
export const getRunRtt = ({ runId, signal }: { runId: string; signal?: AbortSignal }): Promise<RunRtt> =>
  api.get<RunRtt>(`/api/runs/${encodeURIComponent(runId)}/rtt/`, { signal });

export const getRunRttQueryOptions = (runId: string) =>
  queryOptions({
    queryKey: [...runQueryKey(runId), 'rtt'],
    queryFn: ({ signal }) => getRunRtt({ runId, signal }),
    // Only fetched for completed runs, whose samples never change.
    staleTime: Number.POSITIVE_INFINITY,
  });

type UseRunRttOptions = { runId: string; queryConfig?: QueryConfig<typeof getRunRttQueryOptions> };

export const useRunRtt = ({ runId, queryConfig }: UseRunRttOptions) =>
  useQuery({ ...getRunRttQueryOptions(runId), ...queryConfig });
