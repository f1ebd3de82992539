import { Link, useNavigate } from 'react-router';

import { isApiError } from '@/lib/api-client';

import { ErrorAlert } from './error-alert';

/**
 * The one not-found page, inside the app shell: for unknown routes and for ids the API does
 * not know (a random id, a malformed one, another workspace's): all look alike on purpose.
 */
export const NotFound = () => {
  const navigate = useNavigate();
  return (
    <section className="not-found" aria-labelledby="not-found-title">
      <h1 id="not-found-title">Page not found</h1>
      <p>
        Nothing is at this address. The link may be mistyped, or what it pointed to was deleted or belongs
        to another workspace.
      </p>
      <p className="actions">
        <Link to="/experiments" className="button button-primary">
          Go to the experiments
        </Link>
        <button type="button" className="button" onClick={() => void navigate(-1)}>
          Go back
        </button>
      </p>
    </section>
  );
};

/** A 404 from the API: the id is unknown, malformed or another workspace's. */
export const isNotFoundError = (error: unknown): boolean => isApiError(error) && error.status === 404;

/** What a detail page shows when its object could not be loaded: the not-found page for a 404. */
export const LoadError = ({ error, title }: { error: unknown; title?: string }) =>
  isNotFoundError(error) ? <NotFound /> : <ErrorAlert error={error} title={title} />;
