import { useMutation, useQueryClient } from '@tanstack/react-query';
import * as z from 'zod';

import { api, refreshCsrfToken } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { LoginInput, User } from '@/types/api';

import { ME_QUERY_KEY } from './get-me';

export const loginInputSchema = z.object({
  username: z.string().trim().min(1, { error: 'Enter your username.' }),
  password: z.string().min(1, { error: 'Enter your password.' }),
});

export type LoginFormInput = z.infer<typeof loginInputSchema>;

/** POST /api/auth/login/, after GET /api/auth/csrf/ so the CSRF cookie exists. */
export const login = async (data: LoginFormInput): Promise<User> => {
  await refreshCsrfToken();
  return api.post<User>('/api/auth/login/', data satisfies LoginInput);
};

type UseLoginOptions = { mutationConfig?: MutationConfig<typeof login> };

export const useLogin = ({ mutationConfig }: UseLoginOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: (...args) => {
      queryClient.setQueryData(ME_QUERY_KEY, args[0]);
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: login,
  });
};
