import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';

import { powerTraceQueryKey } from './get-power-trace';
import { POWER_TRACES_QUERY_KEY } from './get-power-traces';

/** DELETE /api/power-traces/{id}/ → 204: the trace, its samples and its raw file. */
export const deletePowerTrace = ({ traceId }: { traceId: string }): Promise<void> =>
  api.delete(`/api/power-traces/${encodeURIComponent(traceId)}/`);

type UseDeletePowerTraceOptions = { mutationConfig?: MutationConfig<typeof deletePowerTrace> };

export const useDeletePowerTrace = ({ mutationConfig }: UseDeletePowerTraceOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      const [, { traceId }] = args;
      queryClient.removeQueries({ queryKey: powerTraceQueryKey(traceId) });
      await queryClient.invalidateQueries({ queryKey: [...POWER_TRACES_QUERY_KEY, 'list'] });
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: deletePowerTrace,
  });
};
