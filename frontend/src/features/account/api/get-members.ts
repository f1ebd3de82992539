import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { Member } from '@/types/api';

export const MEMBERS_QUERY_KEY = ['workspace', 'members'] as const;

/** GET /api/workspace/members/: who belongs to the current workspace, with their roles. */
export const getMembers = ({ signal }: { signal?: AbortSignal } = {}): Promise<Member[]> =>
  api.get<Member[]>('/api/workspace/members/', { signal });

export const getMembersQueryOptions = () =>
  queryOptions({ queryKey: MEMBERS_QUERY_KEY, queryFn: ({ signal }) => getMembers({ signal }) });

type UseMembersOptions = { queryConfig?: QueryConfig<typeof getMembersQueryOptions> };

export const useMembers = ({ queryConfig }: UseMembersOptions = {}) =>
  useQuery({ ...getMembersQueryOptions(), ...queryConfig });
