import * as z from 'zod';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
import type { NetworkProfileDetail, NetworkProfileUpdate } from '@/types/api';

import { profileNameSchema } from './create-network-profile';
import { networkProfileQueryKey } from './get-network-profile';
import { NETWORK_PROFILES_QUERY_KEY } from './get-network-profiles';
import { linkSpecSchema } from './link-spec';

/** Only what changed is sent; built-ins answer 403 network_profile_read_only. */
export const updateNetworkProfileInputSchema = z.object({
  name: profileNameSchema.optional(),
  description: z.string().trim().optional(),
  citation: z.string().trim().optional(),
  spec: linkSpecSchema.optional(),
});

export type UpdateNetworkProfileInput = z.infer<typeof updateNetworkProfileInputSchema>;

/** PATCH /api/network-profiles/{id}/ → the updated profile, with its delays recomputed. */
export const updateNetworkProfile = ({
  profileId,
  data,
}: {
  profileId: string;
  data: UpdateNetworkProfileInput;
}): Promise<NetworkProfileDetail> =>
  api.patch<NetworkProfileDetail>(
    `/api/network-profiles/${encodeURIComponent(profileId)}/`,
    data satisfies NetworkProfileUpdate,
  );

type UseUpdateNetworkProfileOptions = { mutationConfig?: MutationConfig<typeof updateNetworkProfile> };

export const useUpdateNetworkProfile = ({ mutationConfig }: UseUpdateNetworkProfileOptions = {}) =>
  useInvalidatingMutation({
    mutationFn: updateNetworkProfile,
    invalidates: [[...NETWORK_PROFILES_QUERY_KEY, 'list']],
    update: (queryClient, profile) => queryClient.setQueryData(networkProfileQueryKey(profile.id), profile),
    mutationConfig,
  });
