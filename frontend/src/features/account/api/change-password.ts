import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { PasswordChangeInput } from '@/types/api';

/**
 * POST /api/auth/password/ → 204. 400 current_password_wrong; 400 validation_error with
 * `new_password` messages from Django's validators. This session stays signed in.
 */
export const changePassword = (data: PasswordChangeInput): Promise<void> => api.post('/api/auth/password/', data);

type UseChangePasswordOptions = { mutationConfig?: MutationConfig<typeof changePassword> };

export const useChangePassword = ({ mutationConfig }: UseChangePasswordOptions = {}) =>
  useMutation({ ...mutationConfig, mutationFn: changePassword });
