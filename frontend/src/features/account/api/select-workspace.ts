import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';

/** POST /api/workspace/{id}/select/ → 204: work in that workspace from now on. */
export const selectWorkspace = ({ workspaceId }: { workspaceId: string }): Promise<void> =>
  api.post(`/api/workspace/${encodeURIComponent(workspaceId)}/select/`);

type UseSelectWorkspaceOptions = { mutationConfig?: MutationConfig<typeof selectWorkspace> };

/** Every cached answer belonged to the previous workspace: all are refetched. */
export const useSelectWorkspace = ({ mutationConfig }: UseSelectWorkspaceOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      await queryClient.invalidateQueries();
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: selectWorkspace,
  });
};
