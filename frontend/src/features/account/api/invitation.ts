import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { InvitationAcceptInput, InvitationPreview, WorkspaceMembership } from '@/types/api';

/** GET /api/invitations/{token}/ (no login): which workspace the link opens; 410 invitation_invalid. */
export const getInvitation = ({ token, signal }: { token: string; signal?: AbortSignal }): Promise<InvitationPreview> =>
  api.get<InvitationPreview>(`/api/invitations/${encodeURIComponent(token)}/`, { signal, skipAuthRedirect: true });

export const getInvitationQueryOptions = (token: string) =>
  queryOptions({
    queryKey: ['invitations', token],
    queryFn: ({ signal }) => getInvitation({ token, signal }),
    retry: false,
  });

export const useInvitation = (token: string) => useQuery(getInvitationQueryOptions(token));

/**
 * POST /api/invitations/{token}/accept/ → 201: signed in, joins as oneself; signed out, with
 * a username and password, creates the account and signs it in. The link is then used up.
 */
export const acceptInvitation = ({
  token,
  ...body
}: InvitationAcceptInput & { token: string }): Promise<WorkspaceMembership> =>
  api.post<WorkspaceMembership>(`/api/invitations/${encodeURIComponent(token)}/accept/`, body, {
    skipAuthRedirect: true,
  });

type UseAcceptInvitationOptions = { mutationConfig?: MutationConfig<typeof acceptInvitation> };

/** The user (and their workspace) changed: every cached answer is refetched. */
export const useAcceptInvitation = ({ mutationConfig }: UseAcceptInvitationOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      await queryClient.invalidateQueries();
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: acceptInvitation,
  });
};
