import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { toQueryString } from '@/lib/query-string';
import type { QueryConfig } from '@/lib/react-query';
import type { PowerBatteryReading } from '@/types/api';

import { POWER_TRACES_QUERY_KEY } from './get-power-traces';

// Under the power-traces root: recording a reading refreshes the figures that show it.
export const batteryReadingsQueryKey = (runId: string) =>
  [...POWER_TRACES_QUERY_KEY, 'battery-readings', runId] as const;

/** GET /api/power-traces/battery-readings/?run=: the run's battery-gauge readings. */
export const getBatteryReadings = ({
  runId,
  signal,
}: {
  runId: string;
  signal?: AbortSignal;
}): Promise<PowerBatteryReading[]> =>
  api.get<PowerBatteryReading[]>(`/api/power-traces/battery-readings/${toQueryString({ run: runId })}`, {
    signal,
  });

export const getBatteryReadingsQueryOptions = (runId: string) =>
  queryOptions({
    queryKey: batteryReadingsQueryKey(runId),
    queryFn: ({ signal }) => getBatteryReadings({ runId, signal }),
  });

type UseBatteryReadingsOptions = {
  runId: string;
  queryConfig?: QueryConfig<typeof getBatteryReadingsQueryOptions>;
};

export const useBatteryReadings = ({ runId, queryConfig }: UseBatteryReadingsOptions) =>
  useQuery({ ...getBatteryReadingsQueryOptions(runId), ...queryConfig });
