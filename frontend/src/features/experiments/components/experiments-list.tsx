import { Link } from 'react-router';

import { StatusBadge } from '@/components/ui/status-badge';
import { paths } from '@/config/paths';
import { formatDateTime } from '@/lib/format';
import type { Experiment } from '@/types/api';

import { PROTOCOL_LABELS } from './labels';

const latestRun = (experiment: Experiment) =>
  experiment.runs.reduce<Experiment['runs'][number] | undefined>(
    (latest, run) => (!latest || run.created_at > latest.created_at ? run : latest),
    undefined,
  );

type ExperimentsListProps = { experiments: Experiment[] };

export const ExperimentsList = ({ experiments }: ExperimentsListProps) => {
  if (experiments.length === 0) {
    return <p className="empty">No experiments yet. Create one to start measuring.</p>;
  }
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">All experiments</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Protocol</th>
            <th scope="col">QoS</th>
            <th scope="col">Payload (bytes)</th>
            <th scope="col">Messages per device</th>
            <th scope="col">Devices</th>
            <th scope="col">Latest run</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {experiments.map((experiment) => {
            const run = latestRun(experiment);
            return (
              <tr key={experiment.id}>
                <th scope="row">
                  <Link to={paths.experiment.getHref(experiment.id)}>{experiment.name}</Link>
                </th>
                <td>{PROTOCOL_LABELS[experiment.protocol]}</td>
                <td className="num">{experiment.qos}</td>
                <td className="num">{experiment.payload_size}</td>
                <td className="num">{experiment.message_count}</td>
                <td className="num">{experiment.device_ids.length}</td>
                <td>{run ? <StatusBadge status={run.status} /> : <span className="muted">none</span>}</td>
                <td>{formatDateTime(experiment.created_at)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
};
