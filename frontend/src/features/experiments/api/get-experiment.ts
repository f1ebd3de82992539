import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { Experiment } from '@/types/api';

import { EXPERIMENTS_QUERY_KEY } from './get-experiments';

/** GET /api/experiments/{id}/ */
export const getExperiment = ({
  experimentId,
  signal,
}: {
  experimentId: string;
  signal?: AbortSignal;
}): Promise<Experiment> =>
  api.get<Experiment>(`/api/experiments/${encodeURIComponent(experimentId)}/`, { signal });

export const getExperimentQueryOptions = (experimentId: string) =>
  queryOptions({
    // Nested under the list key, so invalidating the list refreshes details too.
    queryKey: [...EXPERIMENTS_QUERY_KEY, experimentId],
    queryFn: ({ signal }) => getExperiment({ experimentId, signal }),
  });

type UseExperimentOptions = {
  experimentId: string;
  queryConfig?: QueryConfig<typeof getExperimentQueryOptions>;
};

export const useExperiment = ({ experimentId, queryConfig }: UseExperimentOptions) =>
  useQuery({ ...getExperimentQueryOptions(experimentId), ...queryConfig });
