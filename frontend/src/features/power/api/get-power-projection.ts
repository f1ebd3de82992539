import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { PowerProjection } from '@/types/api';

import { POWER_TRACES_QUERY_KEY } from './get-power-traces';

/** A battery given in Wh, or in mAh at a nominal voltage. */
export type BatteryCapacity =
  | { unit: 'wh'; capacity_wh: number }
  | { unit: 'mah'; capacity_mah: number; capacity_voltage_v: number };

export type ProjectionParams = {
  traces: readonly string[];
  capacity: BatteryCapacity;
  /** The idle power (at most one of the three); without one, duty-cycled hours are null. */
  baseline_trace: string | null;
  baseline_w: number | null;
  baseline_current_a: number | null;
  /** The largest message rate on the x axis, messages per minute. */
  rate_max_per_min: number | null;
};

const capacityParams = (capacity: BatteryCapacity) =>
  capacity.unit === 'wh'
    ? { capacity_wh: capacity.capacity_wh }
    : { capacity_mah: capacity.capacity_mah, capacity_voltage_v: capacity.capacity_voltage_v };

/** GET /api/power-traces/projection/?trace=&trace=&capacity_wh= (or capacity_mah + capacity_voltage_v)&baseline_…= */
export const getPowerProjection = ({
  params,
  signal,
}: {
  params: ProjectionParams;
  signal?: AbortSignal;
}): Promise<PowerProjection> =>
  api.get<PowerProjection>(
    `/api/power-traces/projection/${toQueryString({
      trace: params.traces,
      ...capacityParams(params.capacity),
      baseline_trace: params.baseline_trace,
      baseline_w: params.baseline_w,
      baseline_current_a: params.baseline_current_a,
      rate_max_per_min: params.rate_max_per_min,
    })}`,
    { signal },
  );

export const getPowerProjectionQueryOptions = (params: ProjectionParams) =>
  queryOptions({
    queryKey: [...POWER_TRACES_QUERY_KEY, 'projection', params],
    queryFn: ({ signal }) => getPowerProjection({ params, signal }),
    placeholderData: keepPreviousData,
  });

type UsePowerProjectionOptions = {
  params: ProjectionParams;
  queryConfig?: QueryConfig<typeof getPowerProjectionQueryOptions>;
};

export const usePowerProjection = ({ params, queryConfig }: UsePowerProjectionOptions) =>
  useQuery({ ...getPowerProjectionQueryOptions(params), ...queryConfig });
