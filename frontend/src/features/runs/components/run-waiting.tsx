import { Link } from 'react-router';

import { paths } from '@/config/paths';
import type { RunWaitingFor } from '@/types/api';

/** What a queued run waits for, as the scheduler sees it (the backend's `waiting_for`). */
export const RunWaiting = ({ waiting }: { waiting: RunWaitingFor }) => (
  <section className="alert" aria-labelledby="run-waiting-heading">
    <h2 id="run-waiting-heading" className="panel-title">
      Queued: what it waits for
    </h2>
    {waiting.reason === 'worker' ? (
      <p>{waiting.message}</p>
    ) : (
      <ul>
        {waiting.blockers.map((blocker) => (
          <li key={`${blocker.device ?? 'experiment'}:${blocker.run_id}`}>
            {blocker.device ? (
              <>
                <strong>{blocker.device}</strong> is busy with{' '}
              </>
            ) : (
              'Waits for '
            )}
            <Link to={paths.run.getHref(blocker.run_id)}>
              run {blocker.run_position} of “{blocker.experiment_name}”
            </Link>
            {blocker.device ? null : ' (runs of an experiment go one after another)'}.
          </li>
        ))}
      </ul>
    )}
  </section>
);
