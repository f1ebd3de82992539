import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';

import { MEMBERS_QUERY_KEY } from './get-members';

/** DELETE /api/workspace/members/{id}/ → 204 (owners only: 403 owner_required; 409 last_owner). */
export const removeMember = ({ membershipId }: { membershipId: number }): Promise<void> =>
  api.delete(`/api/workspace/members/${membershipId}/`);

type UseRemoveMemberOptions = { mutationConfig?: MutationConfig<typeof removeMember> };

export const useRemoveMember = ({ mutationConfig }: UseRemoveMemberOptions = {}) =>
  useInvalidatingMutation({ mutationFn: removeMember, invalidates: [MEMBERS_QUERY_KEY], mutationConfig });
