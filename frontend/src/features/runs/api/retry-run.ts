import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { Run } from '@/types/api';

/** POST /api/runs/{id}/retry/ → 201 the new queued run; 409 run_not_retryable unless failed or cancelled. */
export const retryRun = ({ runId }: { runId: string }): Promise<Run> =>
  api.post<Run>(`/api/runs/${encodeURIComponent(runId)}/retry/`);

type UseRetryRunOptions = { mutationConfig?: MutationConfig<typeof retryRun> };

export const useRetryRun = ({ mutationConfig }: UseRetryRunOptions = {}) =>
  useMutation({ ...mutationConfig, mutationFn: retryRun });
