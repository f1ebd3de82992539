import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { RunMethods } from '@/types/api';

import { runQueryKey } from './get-run';

/** GET /api/runs/{id}/methods/: a methods paragraph for a paper. Messaging runs only. */
export const getRunMethods = ({ runId, signal }: { runId: string; signal?: AbortSignal }): Promise<RunMethods> =>
  api.get<RunMethods>(`/api/runs/${encodeURIComponent(runId)}/methods/`, { signal });

export const getRunMethodsQueryOptions = (runId: string) =>
  queryOptions({
    queryKey: [...runQueryKey(runId), 'methods'],
    queryFn: ({ signal }) => getRunMethods({ runId, signal }),
    // Only fetched for completed runs, whose records never change.
    staleTime: Number.POSITIVE_INFINITY,
  });

type UseRunMethodsOptions = { runId: string; queryConfig?: QueryConfig<typeof getRunMethodsQueryOptions> };

export const useRunMethods = ({ runId, queryConfig }: UseRunMethodsOptions) =>
  useQuery({ ...getRunMethodsQueryOptions(runId), ...queryConfig });
