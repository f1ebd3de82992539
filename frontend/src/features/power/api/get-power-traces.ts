import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { PowerTrace, PowerTraceKind } from '@/types/api';

/** The root of every power-trace query: invalidating it refreshes lists, traces and their data. */
export const POWER_TRACES_QUERY_KEY = ['power-traces'] as const;

export type PowerTraceFilters = { run?: string; device?: string; kind?: PowerTraceKind };

export const powerTracesListQueryKey = (filters: PowerTraceFilters = {}) =>
  [...POWER_TRACES_QUERY_KEY, 'list', filters] as const;

/** GET /api/power-traces/?run=&device=&kind=: the workspace's traces. */
export const getPowerTraces = ({
  filters = {},
  signal,
}: {
  filters?: PowerTraceFilters;
  signal?: AbortSignal;
}): Promise<PowerTrace[]> =>
  api.get<PowerTrace[]>(`/api/power-traces/${toQueryString(filters)}`, { signal });

export const getPowerTracesQueryOptions = (filters: PowerTraceFilters = {}) =>
  queryOptions({
    queryKey: powerTracesListQueryKey(filters),
    queryFn: ({ signal }) => getPowerTraces({ filters, signal }),
  });

type UsePowerTracesOptions = {
  filters?: PowerTraceFilters;
  queryConfig?: QueryConfig<typeof getPowerTracesQueryOptions>;
};

export const usePowerTraces = ({ filters, queryConfig }: UsePowerTracesOptions = {}) =>
  useQuery({ ...getPowerTracesQueryOptions(filters), ...queryConfig });
