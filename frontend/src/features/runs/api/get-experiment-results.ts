import { queryOptions, useQuery } from '@tanstack/react-query';

import { env } from '@/config/env';
import { api } from '@/lib/api-client';
import type { ExperimentResults } from '@/types/api';

import { useResultsSource } from './results-api';

/**
 * GET /api/experiments/{id}/results/ signed in, or `{share}/results/` on a shared
 * experiment's page (the same answer under the share's ids): the cells, overheads and methods.
 */
export const experimentResultsPath = (apiBase: string, shared: boolean, experimentId: string) =>
  shared ? `${apiBase}/results/` : `${apiBase}/experiments/${encodeURIComponent(experimentId)}/results/`;

/** The results table as a file (signed in only): one row per cell. */
export const experimentResultsTableHref = (experimentId: string, format: 'csv' | 'parquet') =>
  `${env.API_URL}/api/experiments/${encodeURIComponent(experimentId)}/results/table.${format}`;

export const getExperimentResultsQueryOptions = (path: string) =>
  queryOptions({
    queryKey: ['experiment-results', path],
    queryFn: ({ signal }) => api.get<ExperimentResults>(path, { signal }),
  });

export const useExperimentResults = (experimentId: string) => {
  const { apiBase, shared } = useResultsSource();
  return useQuery(getExperimentResultsQueryOptions(experimentResultsPath(apiBase, shared, experimentId)));
};
