import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';

import { INVITATIONS_QUERY_KEY } from './get-invitations';

/** DELETE /api/workspace/invitations/{id}/ → 204: the link stops working. */
export const revokeInvitation = ({ invitationId }: { invitationId: string }): Promise<void> =>
  api.delete(`/api/workspace/invitations/${encodeURIComponent(invitationId)}/`);

type UseRevokeInvitationOptions = { mutationConfig?: MutationConfig<typeof revokeInvitation> };

export const useRevokeInvitation = ({ mutationConfig }: UseRevokeInvitationOptions = {}) =>
  useInvalidatingMutation({ mutationFn: revokeInvitation, invalidates: [INVITATIONS_QUERY_KEY], mutationConfig });
