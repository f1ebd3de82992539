import { useQuery } from '@tanstack/react-query';

import type { QueryConfig } from '@/lib/react-query';
import type { RunMethods } from '@/types/api';

import { runResultQueryOptions, SIGNED_IN_RESULTS_API, useResultsApi } from './results-api';

/** GET /api/runs/{id}/methods/: a methods paragraph for a paper, for every kind of run. */
export const getRunMethodsQueryOptions = (runId: string, apiBase: string = SIGNED_IN_RESULTS_API) =>
  runResultQueryOptions<RunMethods>({ runId, endpoint: 'methods', apiBase });

type UseRunMethodsOptions = { runId: string; queryConfig?: QueryConfig<typeof getRunMethodsQueryOptions> };

export const useRunMethods = ({ runId, queryConfig }: UseRunMethodsOptions) =>
  useQuery({ ...getRunMethodsQueryOptions(runId, useResultsApi()), ...queryConfig });
