import { Link } from 'react-router';

import { ScrollTable } from '@/components/ui/scroll-table';
import { StatusBadge } from '@/components/ui/status-badge';
import { paths } from '@/config/paths';
import { formatDateTime, MISSING } from '@/lib/format';
import type { Catalogue, Experiment } from '@/types/api';

import { designFileUrl } from '../api/design-file';

import { labelOf } from './catalogue';
import { PROTOCOL_LABELS, reliabilityLabel } from './labels';

const latestRun = (experiment: Experiment) =>
  experiment.runs.reduce<Experiment['runs'][number] | undefined>(
    (latest, run) => (!latest || run.created_at > latest.created_at ? run : latest),
    undefined,
  );

type ExperimentsListProps = {
  experiments: Experiment[];
  /** Whether a search or filter is on (the empty list says so). */
  filtered?: boolean;
  /** Labels for the kinds; their names are shown until it loads. */
  catalogue?: Catalogue;
};

export const ExperimentsList = ({ experiments, filtered = false, catalogue }: ExperimentsListProps) => {
  if (experiments.length === 0 && filtered) {
    return <p className="empty">No experiment matches these filters.</p>;
  }
  if (experiments.length === 0) {
    return <p className="empty">No experiments yet. Create one to start measuring.</p>;
  }
  return (
    <ScrollTable label="All experiments" chooserKey="experiments">
      <table className="table">
        <caption className="visually-hidden">All experiments</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Protocol</th>
            <th scope="col">QoS / CoAP type</th>
            <th scope="col">Payload (bytes)</th>
            <th scope="col">Messages per device</th>
            <th scope="col">Devices</th>
            <th scope="col">Latest run</th>
            <th scope="col">Created</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {experiments.map((experiment) => {
            const run = latestRun(experiment);
            // Protocol, QoS, payload and message count only mean something for messaging.
            const messaging = experiment.kind === 'messaging';
            return (
              <tr key={experiment.id}>
                <th scope="row">
                  <Link to={paths.experiment.getHref(experiment.id)}>{experiment.name}</Link>
                </th>
                <td>{labelOf(catalogue?.experiment_kinds, experiment.kind)}</td>
                <td>{messaging ? PROTOCOL_LABELS[experiment.protocol] : MISSING}</td>
                <td>{messaging ? reliabilityLabel(experiment) : MISSING}</td>
                <td className="num">{messaging ? experiment.payload_size : MISSING}</td>
                <td className="num">{messaging ? experiment.message_count : MISSING}</td>
                <td className="num">{experiment.device_ids.length}</td>
                <td>
                  {run ? <StatusBadge status={run.status} /> : <span className="muted">none</span>}
                  {run?.waiting_for ? <p className="muted waiting-for">{run.waiting_for}</p> : null}
                </td>
                <td>{formatDateTime(experiment.created_at)}</td>
                <td className="row-actions">
                  <Link
                    to={paths.newExperiment.getHref({ from: experiment.id })}
                    aria-label={`Clone ${experiment.name}`}
                  >
                    Clone
                  </Link>{' '}
                  <a href={designFileUrl(experiment.id)} download aria-label={`Export ${experiment.name} as YAML`}>
                    YAML
                  </a>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollTable>
  );
};
