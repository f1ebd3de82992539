import * as z from 'zod';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
import type { ApiTokenIssued } from '@/types/api';

import { API_TOKENS_QUERY_KEY } from './get-api-tokens';

export const createApiTokenSchema = z.object({
  name: z.string().trim().min(1, { error: 'Name the token (what script uses it?).' }).max(80),
});

/** POST /api/auth/tokens/ → 201 with the key, shown this once (only its hash is stored). */
export const createApiToken = (data: z.infer<typeof createApiTokenSchema>): Promise<ApiTokenIssued> =>
  api.post<ApiTokenIssued>('/api/auth/tokens/', data);

type UseCreateApiTokenOptions = { mutationConfig?: MutationConfig<typeof createApiToken> };

export const useCreateApiToken = ({ mutationConfig }: UseCreateApiTokenOptions = {}) =>
  useInvalidatingMutation({ mutationFn: createApiToken, invalidates: [API_TOKENS_QUERY_KEY], mutationConfig });
