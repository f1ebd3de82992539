import * as z from 'zod';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
import type { NetworkProfileDetail, NetworkProfileInput } from '@/types/api';

import { networkProfileQueryKey } from './get-network-profile';
import { NETWORK_PROFILES_QUERY_KEY } from './get-network-profiles';
import { linkSpecSchema } from './link-spec';

/** The backend's column size (NetworkProfilesApi.InputSerializer). */
export const PROFILE_NAME_MAX = 200;

export const profileNameSchema = z
  .string()
  .trim()
  .min(1, { error: 'Give the profile a name.' })
  .max(PROFILE_NAME_MAX, { error: `The name can be at most ${PROFILE_NAME_MAX} characters.` });

export const createNetworkProfileInputSchema = z.object({
  name: profileNameSchema,
  description: z.string().trim(),
  citation: z.string().trim(),
  spec: linkSpecSchema,
});

export type CreateNetworkProfileInput = z.infer<typeof createNetworkProfileInputSchema>;

/** POST /api/network-profiles/ → 201, a profile of the workspace (kind `user`). */
export const createNetworkProfile = ({ data }: { data: CreateNetworkProfileInput }): Promise<NetworkProfileDetail> =>
  api.post<NetworkProfileDetail>('/api/network-profiles/', data satisfies NetworkProfileInput);

type UseCreateNetworkProfileOptions = { mutationConfig?: MutationConfig<typeof createNetworkProfile> };

export const useCreateNetworkProfile = ({ mutationConfig }: UseCreateNetworkProfileOptions = {}) => {
  // The profile's page opens next: give it the profile without another round trip.
  return useInvalidatingMutation({
    mutationFn: createNetworkProfile,
    invalidates: [[...NETWORK_PROFILES_QUERY_KEY, 'list']],
    update: (queryClient, profile) => queryClient.setQueryData(networkProfileQueryKey(profile.id), profile),
    mutationConfig,
  });
};
