import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';

import { POWER_TRACES_QUERY_KEY } from './get-power-traces';

/** DELETE /api/power-traces/battery-readings/{id}/ → 204: the reading (a slip, or a re-measure). */
export const deleteBatteryReading = ({ readingId }: { readingId: string }): Promise<void> =>
  api.delete(`/api/power-traces/battery-readings/${encodeURIComponent(readingId)}/`);

type UseDeleteBatteryReadingOptions = { mutationConfig?: MutationConfig<typeof deleteBatteryReading> };

// The readings list and every figure or projection that showed the reading.
export const useDeleteBatteryReading = ({ mutationConfig }: UseDeleteBatteryReadingOptions = {}) =>
  useInvalidatingMutation({
    mutationFn: deleteBatteryReading,
    invalidates: [POWER_TRACES_QUERY_KEY],
    mutationConfig,
  });
