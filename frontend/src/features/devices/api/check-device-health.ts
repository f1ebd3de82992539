import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { Device } from '@/types/api';

import { DEVICES_QUERY_KEY } from './get-devices';

/**
 * POST /api/devices/{id}/health-check/ → 202 the device, its `health` pending: its agent
 * measures the broker round trip, clock offset, crypto self-test and network-profile
 * capability, and the result arrives in `health` (the devices list shows it).
 */
export const checkDeviceHealth = ({ deviceId }: { deviceId: string }): Promise<Device> =>
  api.post<Device>(`/api/devices/${encodeURIComponent(deviceId)}/health-check/`);

type UseCheckDeviceHealthOptions = { mutationConfig?: MutationConfig<typeof checkDeviceHealth> };

export const useCheckDeviceHealth = ({ mutationConfig }: UseCheckDeviceHealthOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: (...args) => {
      const [device] = args;
      // Show "checking" at once; the page polls until the result arrives.
      queryClient.setQueryData<Device[]>(DEVICES_QUERY_KEY, (devices) =>
        devices?.map((d) => (d.id === device.id ? device : d)),
      );
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: checkDeviceHealth,
  });
};
