import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';

import { API_TOKENS_QUERY_KEY } from './get-api-tokens';

/** DELETE /api/auth/tokens/{id}/ → 204: the next request with the key is refused. */
export const revokeApiToken = ({ tokenId }: { tokenId: string }): Promise<void> =>
  api.delete(`/api/auth/tokens/${encodeURIComponent(tokenId)}/`);

type UseRevokeApiTokenOptions = { mutationConfig?: MutationConfig<typeof revokeApiToken> };

export const useRevokeApiToken = ({ mutationConfig }: UseRevokeApiTokenOptions = {}) =>
  useInvalidatingMutation({ mutationFn: revokeApiToken, invalidates: [API_TOKENS_QUERY_KEY], mutationConfig });
