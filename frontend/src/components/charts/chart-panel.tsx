import { Suspense, type ReactNode } from 'react';
import { ErrorBoundary, type FallbackProps } from 'react-error-boundary';

import { errorMessage } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';

import { ChartTitleProvider } from './chart-title';

const ChartError = ({ error, resetErrorBoundary }: FallbackProps) => (
  <div role="alert" className="alert alert-error">
    The chart could not be drawn: {errorMessage(error)}{' '}
    <button type="button" className="button button-small" onClick={resetErrorBoundary}>
      Try again
    </button>
  </div>
);

type ChartPanelProps = {
  label: string;
  /** Inputs that change what the chart shows (a select, a checkbox), drawn above it. */
  controls?: ReactNode;
  children: ReactNode;
};

/**
 * A titled region around one chart. Its ErrorBoundary keeps a broken chart (or a
 * failed chunk load) from taking the rest of the page down with it. The controls sit
 * outside the boundary, so they stay usable while the chart loads or after it failed.
 */
export const ChartPanel = ({ label, controls, children }: ChartPanelProps) => (
  <section className="panel chart-panel" aria-label={label}>
    <h2 className="panel-title">{label}</h2>
    {controls ? <div className="chart-controls">{controls}</div> : null}
    <ErrorBoundary FallbackComponent={ChartError}>
      <ChartTitleProvider title={label}>
        <Suspense fallback={<Loading label="Loading chart…" />}>{children}</Suspense>
      </ChartTitleProvider>
    </ErrorBoundary>
  </section>
);
