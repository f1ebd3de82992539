import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, isApiError } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { PowerTrace } from '@/types/api';

import { POWER_TRACES_QUERY_KEY } from './get-power-traces';

/** How often a trace is re-fetched while the worker parses it: live enough for its progress bar. */
export const TRACE_POLL_INTERVAL_MS = 1000;

export const powerTraceQueryKey = (traceId: string) => [...POWER_TRACES_QUERY_KEY, traceId] as const;

/** GET /api/power-traces/{id}/ */
export const getPowerTrace = ({ traceId, signal }: { traceId: string; signal?: AbortSignal }): Promise<PowerTrace> =>
  api.get<PowerTrace>(`/api/power-traces/${encodeURIComponent(traceId)}/`, { signal });

export const getPowerTraceQueryOptions = (traceId: string) =>
  queryOptions({
    queryKey: powerTraceQueryKey(traceId),
    queryFn: ({ signal }) => getPowerTrace({ traceId, signal }),
    // Poll only while parsing. A 4xx (deleted, signed out) will not fix itself; keep
    // polling through transient 5xx/network errors, as the run page does.
    refetchInterval: (query) => {
      const { data, error } = query.state;
      if (isApiError(error) && error.status >= 400 && error.status < 500) return false;
      return data?.status === 'parsing' ? TRACE_POLL_INTERVAL_MS : false;
    },
    staleTime: 0,
  });

type UsePowerTraceOptions = { traceId: string; queryConfig?: QueryConfig<typeof getPowerTraceQueryOptions> };

export const usePowerTrace = ({ traceId, queryConfig }: UsePowerTraceOptions) =>
  useQuery({ ...getPowerTraceQueryOptions(traceId), ...queryConfig });
