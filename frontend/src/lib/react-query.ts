import type { DefaultOptions, QueryClientConfig, UseMutationOptions } from '@tanstack/react-query';

import { isApiError } from './api-client';

// Client errors (4xx) will not change by retrying; network and 5xx errors might.
const MAX_RETRIES = 2;

export const queryConfig = {
  queries: {
    refetchOnWindowFocus: false,
    staleTime: 30_000,
    retry: (failureCount, error) =>
      !(isApiError(error) && error.status >= 400 && error.status < 500) &&
      failureCount < MAX_RETRIES,
  },
} satisfies DefaultOptions;

export const queryClientConfig: QueryClientConfig = { defaultOptions: queryConfig };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- generic helper type, as in bulletproof-react's lib/react-query.ts
export type AnyFunction = (...args: any[]) => any;

export type ApiFnReturnType<FnType extends AnyFunction> = Awaited<ReturnType<FnType>>;

export type QueryConfig<T extends AnyFunction> = Omit<ReturnType<T>, 'queryKey' | 'queryFn'>;

export type MutationConfig<MutationFnType extends AnyFunction> = UseMutationOptions<
  ApiFnReturnType<MutationFnType>,
  Error,
  Parameters<MutationFnType>[0]
>;
