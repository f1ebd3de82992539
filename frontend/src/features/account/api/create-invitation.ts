import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
import type { InvitationIssued, MemberRole } from '@/types/api';

import { INVITATIONS_QUERY_KEY } from './get-invitations';

/** POST /api/workspace/invitations/ → 201 with the link, shown this once (single use, expires). */
export const createInvitation = (data: { role: MemberRole; expires_in_days: number }): Promise<InvitationIssued> =>
  api.post<InvitationIssued>('/api/workspace/invitations/', data);

type UseCreateInvitationOptions = { mutationConfig?: MutationConfig<typeof createInvitation> };

export const useCreateInvitation = ({ mutationConfig }: UseCreateInvitationOptions = {}) =>
  useInvalidatingMutation({ mutationFn: createInvitation, invalidates: [INVITATIONS_QUERY_KEY], mutationConfig });
