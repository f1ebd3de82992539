import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { Experiment, RunStatus } from '@/types/api';

export const EXPERIMENTS_QUERY_KEY = ['experiments'] as const;

/**
 * GET /api/experiments/'s filters: a search of names and descriptions, the protocol, a
 * mechanism (payload security or benchmarked), a device, the latest run's status ("never":
 * no run yet) and the creation dates (ISO days, inclusive).
 */
export type ExperimentFilters = {
  q?: string;
  protocol?: string;
  mechanism?: string;
  device?: string;
  status?: RunStatus | 'never';
  created_after?: string;
  created_before?: string;
};

/** GET /api/experiments/ */
export const getExperiments = ({
  filters = {},
  signal,
}: { filters?: ExperimentFilters; signal?: AbortSignal } = {}): Promise<Experiment[]> =>
  api.get<Experiment[]>(`/api/experiments/${toQueryString(filters)}`, { signal });

export const getExperimentsQueryOptions = (filters: ExperimentFilters = {}) =>
  queryOptions({
    // Unfiltered lists share the plain key, which detail keys nest under.
    queryKey: Object.keys(filters).length > 0 ? [...EXPERIMENTS_QUERY_KEY, { filters }] : EXPERIMENTS_QUERY_KEY,
    queryFn: ({ signal }) => getExperiments({ filters, signal }),
    // Keep the last list while a new filter's answer comes in.
    placeholderData: keepPreviousData,
  });

type UseExperimentsOptions = {
  filters?: ExperimentFilters;
  queryConfig?: QueryConfig<typeof getExperimentsQueryOptions>;
};

export const useExperiments = ({ filters, queryConfig }: UseExperimentsOptions = {}) =>
  useQuery({ ...getExperimentsQueryOptions(filters), ...queryConfig });
