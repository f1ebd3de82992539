import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, ERROR_CODES, isApiError } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { User } from '@/types/api';

export const ME_QUERY_KEY = ['auth', 'me'] as const;

/** GET /api/auth/me/. Resolves to null when nobody is signed in (401 not_authenticated). */
export const getMe = async ({ signal }: { signal?: AbortSignal } = {}): Promise<User | null> => {
  try {
    return await api.get<User>('/api/auth/me/', { signal, skipAuthRedirect: true });
  } catch (error) {
    if (isApiError(error) && error.code === ERROR_CODES.notAuthenticated) return null;
    throw error;
  }
};

export const getMeQueryOptions = () =>
  queryOptions({
    queryKey: ME_QUERY_KEY,
    queryFn: ({ signal }) => getMe({ signal }),
    // Login, logout and the not_authenticated handler write this entry directly.
    staleTime: Number.POSITIVE_INFINITY,
  });

type UseMeOptions = { queryConfig?: QueryConfig<typeof getMeQueryOptions> };

export const useMe = ({ queryConfig }: UseMeOptions = {}) =>
  useQuery({ ...getMeQueryOptions(), ...queryConfig });
