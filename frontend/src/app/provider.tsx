import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ErrorBoundary } from 'react-error-boundary';

import { MainErrorFallback } from '@/components/ui/main-error-fallback';
import { useSignOutOnAuthLoss } from '@/features/auth/hooks/use-sign-out-on-auth-loss';
import { queryClientConfig } from '@/lib/react-query';

const AuthLossHandler = () => {
  useSignOutOnAuthLoss();
  return null;
};

type AppProviderProps = {
  children: ReactNode;
  /** Tests pass their own client (no retries, fresh cache per test). */
  queryClient?: QueryClient;
};

export const AppProvider = ({ children, queryClient: providedClient }: AppProviderProps) => {
  const [queryClient] = useState(() => providedClient ?? new QueryClient(queryClientConfig));
  return (
    <ErrorBoundary FallbackComponent={MainErrorFallback}>
      <QueryClientProvider client={queryClient}>
        <AuthLossHandler />
        {children}
      </QueryClientProvider>
    </ErrorBoundary>
  );
};
