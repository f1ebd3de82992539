import type { FallbackProps } from 'react-error-boundary';

import { errorMessage } from './error-alert';

/** Last-resort screen for render errors outside any narrower ErrorBoundary. */
export const MainErrorFallback = ({ error }: FallbackProps) => (
  <main className="page">
    <div role="alert" className="alert alert-error">
      <h1>Something went wrong</h1>
      <p>{errorMessage(error)}</p>
      <button type="button" className="button" onClick={() => window.location.assign('/')}>
        Reload
      </button>
    </div>
  </main>
);
