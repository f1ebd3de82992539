import { useMutation, useQueryClient } from '@tanstack/react-query';
import * as z from 'zod';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { PowerTrace, PowerTraceUpdate } from '@/types/api';

import { powerTraceQueryKey } from './get-power-trace';
import { POWER_TRACES_QUERY_KEY } from './get-power-traces';

/** Offsets beyond a day are typing slips, not clock drift between a meter and a run. */
export const OFFSET_MAX_S = 86_400;

export const updatePowerTraceInputSchema = z.object({
  name: z.string().trim().optional(),
  device: z.string().nullable().optional(),
  run: z.string().nullable().optional(),
  baseline_name: z.string().trim().optional(),
  /** Where the run starts on the trace's time axis, in seconds; null: where the meter's timestamps put it. */
  offset_s: z
    .number({ error: 'The offset must be a number of seconds.' })
    .min(-OFFSET_MAX_S, { error: `The offset must be at least −${OFFSET_MAX_S} s.` })
    .max(OFFSET_MAX_S, { error: `The offset must be at most ${OFFSET_MAX_S} s.` })
    .nullable()
    .optional(),
});

export type UpdatePowerTraceInput = z.infer<typeof updatePowerTraceInputSchema>;

/** PATCH /api/power-traces/{id}/ → the updated trace. */
export const updatePowerTrace = ({
  traceId,
  data,
}: {
  traceId: string;
  data: UpdatePowerTraceInput;
}): Promise<PowerTrace> =>
  api.patch<PowerTrace>(`/api/power-traces/${encodeURIComponent(traceId)}/`, data satisfies PowerTraceUpdate);

type UseUpdatePowerTraceOptions = { mutationConfig?: MutationConfig<typeof updatePowerTrace> };

export const useUpdatePowerTrace = ({ mutationConfig }: UseUpdatePowerTraceOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      const [trace] = args;
      // The shaded run window moves as soon as the answer is in.
      queryClient.setQueryData(powerTraceQueryKey(trace.id), trace);
      // Everything else about traces: lists, and this trace's figures (their default
      // window is the run window). Not the trace itself, which was just set.
      const traceKey = powerTraceQueryKey(trace.id);
      await queryClient.invalidateQueries({
        queryKey: POWER_TRACES_QUERY_KEY,
        predicate: (query) => !(query.queryKey.length === traceKey.length && query.queryKey[1] === trace.id),
      });
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: updatePowerTrace,
  });
};
