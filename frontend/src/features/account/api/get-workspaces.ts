import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { WorkspaceMembership } from '@/types/api';

export const WORKSPACES_QUERY_KEY = ['workspace', 'list'] as const;

/** GET /api/workspace/: every workspace the user belongs to; `current` is the one in use. */
export const getWorkspaces = ({ signal }: { signal?: AbortSignal } = {}): Promise<WorkspaceMembership[]> =>
  api.get<WorkspaceMembership[]>('/api/workspace/', { signal });

export const getWorkspacesQueryOptions = () =>
  queryOptions({ queryKey: WORKSPACES_QUERY_KEY, queryFn: ({ signal }) => getWorkspaces({ signal }) });

type UseWorkspacesOptions = { queryConfig?: QueryConfig<typeof getWorkspacesQueryOptions> };

export const useWorkspaces = ({ queryConfig }: UseWorkspacesOptions = {}) =>
  useQuery({ ...getWorkspacesQueryOptions(), ...queryConfig });
