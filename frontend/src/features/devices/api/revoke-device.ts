import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';

import { DEVICES_QUERY_KEY } from './get-devices';

/**
 * POST /api/devices/{id}/revoke/ → 204: the agent's token stops working, it gets no more
 * runs and leaves GET /api/devices/. 409 device_busy while it has queued or running runs.
 */
export const revokeDevice = ({ deviceId }: { deviceId: string }): Promise<void> =>
  api.post(`/api/devices/${encodeURIComponent(deviceId)}/revoke/`);

type UseRevokeDeviceOptions = { mutationConfig?: MutationConfig<typeof revokeDevice> };

export const useRevokeDevice = ({ mutationConfig }: UseRevokeDeviceOptions = {}) => {
  // The revoked device leaves the list (and the new-experiment form's choices).
  return useInvalidatingMutation({
    mutationFn: revokeDevice,
    invalidates: [DEVICES_QUERY_KEY],
    mutationConfig,
  });
};
