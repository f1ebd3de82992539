import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { Share, ShareInput, ShareUpdate } from '@/types/api';

import { SHARES_QUERY_KEY } from './get-shares';

/** POST /api/shares/ → 201 Share: a new public link. */
export const createShare = (input: ShareInput): Promise<Share> => api.post<Share>('/api/shares/', input);

/** PATCH /api/shares/{id}/: a new title or expiry (null: never expires). */
export const updateShare = ({ shareId, data }: { shareId: string; data: ShareUpdate }): Promise<Share> =>
  api.patch<Share>(`/api/shares/${encodeURIComponent(shareId)}/`, data);

/** POST /api/shares/{id}/revoke/: the link stops answering at once, for good. */
export const revokeShare = ({ shareId }: { shareId: string }): Promise<Share> =>
  api.post<Share>(`/api/shares/${encodeURIComponent(shareId)}/revoke/`);

/** A mutation of shares that refreshes every list of them when it succeeds. */
const useShareMutation = <TArgs,>(
  mutationFn: (args: TArgs) => Promise<Share>,
  mutationConfig?: MutationConfig<(args: TArgs) => Promise<Share>>,
) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      await queryClient.invalidateQueries({ queryKey: SHARES_QUERY_KEY });
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn,
  });
};

export const useCreateShare = ({ mutationConfig }: { mutationConfig?: MutationConfig<typeof createShare> } = {}) =>
  useShareMutation(createShare, mutationConfig);

export const useUpdateShare = ({ mutationConfig }: { mutationConfig?: MutationConfig<typeof updateShare> } = {}) =>
  useShareMutation(updateShare, mutationConfig);

export const useRevokeShare = ({ mutationConfig }: { mutationConfig?: MutationConfig<typeof revokeShare> } = {}) =>
  useShareMutation(revokeShare, mutationConfig);
