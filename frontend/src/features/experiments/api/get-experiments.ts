import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { Experiment } from '@/types/api';

export const EXPERIMENTS_QUERY_KEY = ['experiments'] as const;

/** GET /api/experiments/ */
export const getExperiments = ({ signal }: { signal?: AbortSignal } = {}): Promise<Experiment[]> =>
  api.get<Experiment[]>('/api/experiments/', { signal });

export const getExperimentsQueryOptions = () =>
  queryOptions({
    queryKey: EXPERIMENTS_QUERY_KEY,
    queryFn: ({ signal }) => getExperiments({ signal }),
  });

type UseExperimentsOptions = { queryConfig?: QueryConfig<typeof getExperimentsQueryOptions> };

export const useExperiments = ({ queryConfig }: UseExperimentsOptions = {}) =>
  useQuery({ ...getExperimentsQueryOptions(), ...queryConfig });
