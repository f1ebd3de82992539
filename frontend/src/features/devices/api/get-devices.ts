import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { Device } from '@/types/api';

export const DEVICES_QUERY_KEY = ['devices'] as const;

/** GET /api/devices/: the workspace's enrolled devices. */
export const getDevices = ({ signal }: { signal?: AbortSignal } = {}): Promise<Device[]> =>
  api.get<Device[]>('/api/devices/', { signal });

export const getDevicesQueryOptions = () =>
  queryOptions({
    queryKey: DEVICES_QUERY_KEY,
    queryFn: ({ signal }) => getDevices({ signal }),
  });

type UseDevicesOptions = { queryConfig?: QueryConfig<typeof getDevicesQueryOptions> };

export const useDevices = ({ queryConfig }: UseDevicesOptions = {}) =>
  useQuery({ ...getDevicesQueryOptions(), ...queryConfig });
