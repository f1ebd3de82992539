import { useMutation, useQueryClient } from '@tanstack/react-query';
import * as z from 'zod';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { PowerBatteryReading, PowerBatteryReadingInput } from '@/types/api';

import { POWER_TRACES_QUERY_KEY } from './get-power-traces';

// The server's limits (power.services.BATTERY_MAX_MAH, BATTERY_MAX_VOLTAGE_V), checked here
// first so a slip is named before the round trip.
export const BATTERY_MAX_MAH = 100_000;
export const BATTERY_MAX_VOLTAGE_V = 60;

export const recordBatteryReadingInputSchema = z.object({
  run: z.string().min(1),
  device: z.string().nullable(),
  charge_mah: z
    .number({ error: 'The charge must be a number of mAh.' })
    .gt(0, { error: 'The charge must be more than 0 mAh.' })
    .max(BATTERY_MAX_MAH, { error: `The charge must be at most ${BATTERY_MAX_MAH} mAh.` }),
  voltage_v: z
    .number({ error: 'The voltage must be a number of volts.' })
    .gt(0, { error: 'The voltage must be more than 0 V.' })
    .max(BATTERY_MAX_VOLTAGE_V, { error: `The voltage must be at most ${BATTERY_MAX_VOLTAGE_V} V.` }),
});

export type RecordBatteryReadingInput = z.infer<typeof recordBatteryReadingInputSchema>;

/** POST /api/power-traces/battery-readings/ → the reading (replaces the run and device's last one). */
export const recordBatteryReading = (data: RecordBatteryReadingInput): Promise<PowerBatteryReading> =>
  api.post<PowerBatteryReading>('/api/power-traces/battery-readings/', data satisfies PowerBatteryReadingInput);

type UseRecordBatteryReadingOptions = { mutationConfig?: MutationConfig<typeof recordBatteryReading> };

export const useRecordBatteryReading = ({ mutationConfig }: UseRecordBatteryReadingOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      // The readings list and every figure or projection that may show the reading.
      await queryClient.invalidateQueries({ queryKey: POWER_TRACES_QUERY_KEY });
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: recordBatteryReading,
  });
};
