import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { Invitation } from '@/types/api';

export const INVITATIONS_QUERY_KEY = ['workspace', 'invitations'] as const;

/** GET /api/workspace/invitations/: open invitation links (owners only; 403 for members). */
export const getInvitations = ({ signal }: { signal?: AbortSignal } = {}): Promise<Invitation[]> =>
  api.get<Invitation[]>('/api/workspace/invitations/', { signal });

export const getInvitationsQueryOptions = () =>
  queryOptions({ queryKey: INVITATIONS_QUERY_KEY, queryFn: ({ signal }) => getInvitations({ signal }) });

type UseInvitationsOptions = { queryConfig?: QueryConfig<typeof getInvitationsQueryOptions> };

export const useInvitations = ({ queryConfig }: UseInvitationsOptions = {}) =>
  useQuery({ ...getInvitationsQueryOptions(), ...queryConfig });
