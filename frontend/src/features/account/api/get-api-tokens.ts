import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { ApiToken } from '@/types/api';

export const API_TOKENS_QUERY_KEY = ['auth', 'tokens'] as const;

/** GET /api/auth/tokens/: the user's personal API tokens (never their keys). */
export const getApiTokens = ({ signal }: { signal?: AbortSignal } = {}): Promise<ApiToken[]> =>
  api.get<ApiToken[]>('/api/auth/tokens/', { signal });

export const getApiTokensQueryOptions = () =>
  queryOptions({ queryKey: API_TOKENS_QUERY_KEY, queryFn: ({ signal }) => getApiTokens({ signal }) });

type UseApiTokensOptions = { queryConfig?: QueryConfig<typeof getApiTokensQueryOptions> };

export const useApiTokens = ({ queryConfig }: UseApiTokensOptions = {}) =>
  useQuery({ ...getApiTokensQueryOptions(), ...queryConfig });
