import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { PowerFigures } from '@/types/api';

import { powerTraceQueryKey } from './get-power-trace';

/**
 * What the figures are computed over. Window ends in trace seconds (null: the server's
 * default, the run window else the whole trace); at most one baseline source.
 */
export type FiguresParams = {
  start: number | null;
  end: number | null;
  baseline_trace: string | null;
  baseline_w: number | null;
  baseline_current_a: number | null;
  reference_trace: string | null;
};

export const DEFAULT_FIGURES_PARAMS: FiguresParams = {
  start: null,
  end: null,
  baseline_trace: null,
  baseline_w: null,
  baseline_current_a: null,
  reference_trace: null,
};

/** GET /api/power-traces/{id}/figures/?start=&end=&baseline_…=&reference_trace= */
export const getPowerFigures = ({
  traceId,
  params,
  signal,
}: {
  traceId: string;
  params: FiguresParams;
  signal?: AbortSignal;
}): Promise<PowerFigures> =>
  api.get<PowerFigures>(`/api/power-traces/${encodeURIComponent(traceId)}/figures/${toQueryString(params)}`, {
    signal,
  });

export const getPowerFiguresQueryOptions = (traceId: string, params: FiguresParams) =>
  queryOptions({
    queryKey: [...powerTraceQueryKey(traceId), 'figures', params],
    queryFn: ({ signal }) => getPowerFigures({ traceId, params, signal }),
    // Keep the last table on screen while a new window or baseline is computed.
    placeholderData: keepPreviousData,
  });

type UsePowerFiguresOptions = {
  traceId: string;
  params: FiguresParams;
  queryConfig?: QueryConfig<typeof getPowerFiguresQueryOptions>;
};

export const usePowerFigures = ({ traceId, params, queryConfig }: UsePowerFiguresOptions) =>
  useQuery({ ...getPowerFiguresQueryOptions(traceId, params), ...queryConfig });
