import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { SharedContent } from '@/types/api';

/** The public API of one link: the results views read below it (ResultsApiContext). */
export const sharedApiBase = (token: string) => `/api/public/shares/${encodeURIComponent(token)}`;

/** GET /api/public/shares/{token}/: what the link shows; 404 share_not_found once revoked. */
export const getSharedContent = ({ token, signal }: { token: string; signal?: AbortSignal }): Promise<SharedContent> =>
  api.get<SharedContent>(`${sharedApiBase(token)}/`, { signal });

export const getSharedContentQueryOptions = (token: string) =>
  queryOptions({
    queryKey: ['shared', token],
    queryFn: ({ signal }) => getSharedContent({ token, signal }),
  });

type UseSharedContentOptions = { token: string; queryConfig?: QueryConfig<typeof getSharedContentQueryOptions> };

export const useSharedContent = ({ token, queryConfig }: UseSharedContentOptions) =>
  useQuery({ ...getSharedContentQueryOptions(token), ...queryConfig });
