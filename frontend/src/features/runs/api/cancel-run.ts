import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { Run } from '@/types/api';

import { runQueryKey } from './get-run';

/** POST /api/runs/{id}/cancel/ → the cancelled run; 409 run_not_cancellable once it finished. */
export const cancelRun = ({ runId }: { runId: string }): Promise<Run> =>
  api.post<Run>(`/api/runs/${encodeURIComponent(runId)}/cancel/`);

type UseCancelRunOptions = { mutationConfig?: MutationConfig<typeof cancelRun> };

export const useCancelRun = ({ mutationConfig }: UseCancelRunOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: (...args) => {
      // The run page shows the cancelled run at once, without waiting for its next poll.
      queryClient.setQueryData(runQueryKey(args[0].id), args[0]);
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: cancelRun,
  });
};
