import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { PowerPlot } from '@/types/api';

import { powerTraceQueryKey } from './get-power-trace';

/** Buckets per plot: a few per screen pixel of a wide chart; the server accepts 100–5000. */
export const PLOT_POINTS = 2000;

/** A window of the trace in trace seconds; null ends mean "from the start" / "to the end". */
export type PlotRange = { start: number | null; end: number | null };

export const WHOLE_TRACE: PlotRange = { start: null, end: null };

/** GET /api/power-traces/{id}/plot/?start=&end=&points=: min/max/mean envelopes of a window. */
export const getPowerPlot = ({
  traceId,
  range,
  signal,
}: {
  traceId: string;
  range: PlotRange;
  signal?: AbortSignal;
}): Promise<PowerPlot> =>
  api.get<PowerPlot>(
    `/api/power-traces/${encodeURIComponent(traceId)}/plot/${toQueryString({
      start: range.start,
      end: range.end,
      points: PLOT_POINTS,
    })}`,
    { signal },
  );

export const getPowerPlotQueryOptions = (traceId: string, range: PlotRange) =>
  queryOptions({
    queryKey: [...powerTraceQueryKey(traceId), 'plot', range],
    queryFn: ({ signal }) => getPowerPlot({ traceId, range, signal }),
    // Zooming asks for another window: keep drawing the last one until it arrives.
    placeholderData: keepPreviousData,
  });

type UsePowerPlotOptions = {
  traceId: string;
  range: PlotRange;
  queryConfig?: QueryConfig<typeof getPowerPlotQueryOptions>;
};

export const usePowerPlot = ({ traceId, range, queryConfig }: UsePowerPlotOptions) =>
  useQuery({ ...getPowerPlotQueryOptions(traceId, range), ...queryConfig });
