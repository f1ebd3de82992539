import { Suspense, type ReactNode } from 'react';
import { ErrorBoundary, type FallbackProps } from 'react-error-boundary';

import { errorMessage } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';

const ChartError = ({ error, resetErrorBoundary }: FallbackProps) => (
  <div role="alert" className="alert alert-error">
    The chart could not be drawn: {errorMessage(error)}{' '}
    <button type="button" className="button button-small" onClick={resetErrorBoundary}>
      Try again
    </button>
  </div>
);

type ChartPanelProps = { label: string; children: ReactNode };

/**
 * A titled region around one chart. Its ErrorBoundary keeps a broken chart (or a
 * failed chunk load) from taking the rest of the page down with it.
 */
export const ChartPanel = ({ label, children }: ChartPanelProps) => (
  <section className="panel chart-panel" aria-label={label}>
    <h2 className="panel-title">{label}</h2>
    <ErrorBoundary FallbackComponent={ChartError}>
      <Suspense fallback={<Loading label="Loading chart…" />}>{children}</Suspense>
    </ErrorBoundary>
  </section>
);
