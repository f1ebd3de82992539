import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { ScrollTable } from '@/components/ui/scroll-table';
import { StatusBadge } from '@/components/ui/status-badge';
import { paths } from '@/config/paths';
import { formatDateTime } from '@/lib/format';
import type { RunBrief } from '@/types/api';

type ExperimentRunsTableProps = {
  runs: readonly RunBrief[];
  /** Cancel / retry of one run (the route passes the runs feature's buttons in). */
  renderActions?: (run: RunBrief) => ReactNode;
};

/**
 * The experiment's runs in queue order (each combination of the matrix, then the next
 * repeat; retries after), with their status, times and errors.
 */
export const ExperimentRunsTable = ({ runs, renderActions }: ExperimentRunsTableProps) => {
  const ordered = [...runs].sort(
    (a, b) => a.created_at.localeCompare(b.created_at) || a.position - b.position,
  );
  return (
    <section className="panel" aria-labelledby="runs-heading">
      <h2 id="runs-heading" className="panel-title">
        Runs
      </h2>
      {ordered.length === 0 ? (
        <p className="empty">No runs yet.</p>
      ) : (
        <ScrollTable label="Runs of this experiment">
          <table className="table">
            <caption className="visually-hidden">Runs of this experiment</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Run</th>
                <th scope="col">Repeat</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Finished</th>
                <th scope="col">Error</th>
                {renderActions ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {ordered.map((run) => (
                <tr key={run.id}>
                  <td className="num">{run.position + 1}</td>
                  <th scope="row">
                    <Link to={paths.run.getHref(run.id)}>
                      {run.cell_label || `Run of ${formatDateTime(run.created_at)}`}
                    </Link>
                  </th>
                  <td className="num">{run.repeat}</td>
                  <td>
                    <StatusBadge status={run.status} />
                    {/* A queued run says what holds it back (GET /api/experiments/ waiting_for). */}
                    {run.waiting_for ? <p className="muted waiting-for">{run.waiting_for}</p> : null}
                  </td>
                  <td>{formatDateTime(run.started_at)}</td>
                  <td>{formatDateTime(run.finished_at)}</td>
                  <td>{run.error}</td>
                  {renderActions ? <td>{renderActions(run)}</td> : null}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
    </section>
  );
};
