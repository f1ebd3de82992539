import { useQuery } from '@tanstack/react-query';

import type { QueryConfig } from '@/lib/react-query';
import type { RunStatistics } from '@/types/api';

import { runResultQueryOptions, SIGNED_IN_RESULTS_API, useResultsApi } from './results-api';

/**
 * GET /api/runs/{id}/statistics/: counts and round-trip statistics per device and all
 * devices. Messaging runs only: the others answer 400 run_has_no_round_trips.
 */
export const getRunStatisticsQueryOptions = (runId: string, apiBase: string = SIGNED_IN_RESULTS_API) =>
  runResultQueryOptions<RunStatistics>({ runId, endpoint: 'statistics', apiBase });

type UseRunStatisticsOptions = { runId: string; queryConfig?: QueryConfig<typeof getRunStatisticsQueryOptions> };

export const useRunStatistics = ({ runId, queryConfig }: UseRunStatisticsOptions) =>
  useQuery({ ...getRunStatisticsQueryOptions(runId, useResultsApi()), ...queryConfig });
