import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
import type { Run } from '@/types/api';

import { EXPERIMENTS_QUERY_KEY } from './get-experiments';

/** POST /api/experiments/{id}/runs/ (empty body) → 201 Run: starts a run. */
export const startRun = ({ experimentId }: { experimentId: string }): Promise<Run> =>
  api.post<Run>(`/api/experiments/${encodeURIComponent(experimentId)}/runs/`);

type UseStartRunOptions = { mutationConfig?: MutationConfig<typeof startRun> };

export const useStartRun = ({ mutationConfig }: UseStartRunOptions = {}) => {
  // The experiment's runs list (and the list page's latest status) changed.
  return useInvalidatingMutation({
    mutationFn: startRun,
    invalidates: [EXPERIMENTS_QUERY_KEY],
    mutationConfig,
  });
};
