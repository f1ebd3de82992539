import { useMutation, useQueryClient, type QueryClient, type QueryKey } from '@tanstack/react-query';

import type { AnyFunction, ApiFnReturnType, MutationConfig } from './react-query';

type InvalidatingMutationOptions<Fn extends AnyFunction> = {
  mutationFn: Fn;
  /** The queries whose data the mutation changes: invalidated (and awaited) on success. */
  invalidates: readonly QueryKey[];
  /** Runs first on success, with the response: e.g. to seed a detail query without a round trip. */
  update?: (queryClient: QueryClient, data: ApiFnReturnType<Fn>) => void;
  /** The caller's options; its onSuccess runs after the invalidation. */
  mutationConfig?: MutationConfig<Fn>;
};

/**
 * A mutation that refreshes the queries it changes, then calls the caller's onSuccess: the
 * shape of most of the app's POST/PATCH/DELETE hooks (bulletproof-react's pattern, once).
 */
export const useInvalidatingMutation = <Fn extends AnyFunction>({
  mutationFn,
  invalidates,
  update,
  mutationConfig,
}: InvalidatingMutationOptions<Fn>) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation<ApiFnReturnType<Fn>, Error, Parameters<Fn>[0]>({
    onSuccess: async (...args) => {
      update?.(queryClient, args[0]);
      await Promise.all(invalidates.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn,
  });
};
