import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { Preset } from '@/types/api';

export const PRESETS_QUERY_KEY = ['presets'] as const;

/** GET /api/presets/: the four papers' designs, each with its source and what differs here. */
export const getPresets = ({ signal }: { signal?: AbortSignal } = {}): Promise<Preset[]> =>
  api.get<Preset[]>('/api/presets/', { signal });

export const getPresetsQueryOptions = () =>
  queryOptions({
    queryKey: PRESETS_QUERY_KEY,
    queryFn: ({ signal }) => getPresets({ signal }),
    // Fixed by the backend's code and fixtures: it only changes with a deployment.
    staleTime: Number.POSITIVE_INFINITY,
  });

type UsePresetsOptions = { queryConfig?: QueryConfig<typeof getPresetsQueryOptions> };

export const usePresets = ({ queryConfig }: UsePresetsOptions = {}) =>
  useQuery({ ...getPresetsQueryOptions(), ...queryConfig });
