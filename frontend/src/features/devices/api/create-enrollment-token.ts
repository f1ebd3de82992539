import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
import type { EnrollmentToken } from '@/types/api';

import { DEVICES_QUERY_KEY } from './get-devices';

/** POST /api/devices/enrollment-tokens/ → 201. The token is only ever shown in this response. */
export const createEnrollmentToken = (): Promise<EnrollmentToken> =>
  api.post<EnrollmentToken>('/api/devices/enrollment-tokens/');

type UseCreateEnrollmentTokenOptions = {
  mutationConfig?: MutationConfig<typeof createEnrollmentToken>;
};

export const useCreateEnrollmentToken = ({ mutationConfig }: UseCreateEnrollmentTokenOptions = {}) => {
  // A device enrolled with this token shows up in the list; refresh it soon.
  return useInvalidatingMutation({
    mutationFn: createEnrollmentToken,
    invalidates: [DEVICES_QUERY_KEY],
    mutationConfig,
  });
};
