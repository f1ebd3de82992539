import { keepPreviousData, queryOptions, skipToken, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { DesignPlan } from '@/types/api';

import type { CreateExperimentInput } from './create-experiment';

/** A design as the plan endpoint takes it: the create body without a name. */
export type PlanInput = Omit<CreateExperimentInput, 'name'>;

/**
 * POST /api/experiments/plan/ → how many runs the design expands to, how long they take and
 * what to watch out for, before anything is created; the same field errors as creating it.
 */
export const planDesign = ({ input, signal }: { input: PlanInput; signal?: AbortSignal }): Promise<DesignPlan> =>
  api.post<DesignPlan>('/api/experiments/plan/', input, { signal });

/** Null while the form is incomplete: nothing is asked then. */
export const getPlanQueryOptions = (input: PlanInput | null) =>
  queryOptions({
    queryKey: ['experiment-plan', input] as const,
    queryFn: input ? ({ signal }) => planDesign({ input, signal }) : skipToken,
    // Keep showing the last plan while the next one is asked for: no flicker as the user types.
    placeholderData: keepPreviousData,
    // A plan depends only on the design (and the platform's estimates, which rarely change).
    staleTime: 60_000,
  });

type UsePlanOptions = { input: PlanInput | null; queryConfig?: QueryConfig<typeof getPlanQueryOptions> };

export const usePlan = ({ input, queryConfig }: UsePlanOptions) =>
  useQuery({ ...getPlanQueryOptions(input), ...queryConfig });
