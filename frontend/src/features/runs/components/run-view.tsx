import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { StatusBadge } from '@/components/ui/status-badge';
import { paths } from '@/config/paths';
import { formatDateTime } from '@/lib/format';
import type { Run } from '@/types/api';

import { isRunFinished, showsMeasuredResults } from '../api/get-run';
import { useResultsSource } from '../api/results-api';
import { RUN_KIND_RESULTS, type RunResultsProps } from '../kinds';

import { ClockOffsets } from './clock-offsets';
import { describeInterval } from './interval-spec';
import { NetworkConditions } from './network-conditions';
import { MethodsParagraph, RunExports } from './run-exports';
import { RunProgress } from './run-progress';
import { RunResources } from './run-resources';
import { RunWaiting } from './run-waiting';

const NO_LABELS: ReadonlyMap<string, string> = new Map();

/** What the run's kind measured, from its entry in ../kinds/index.tsx. */
const KindResults = ({ run, mechanismLabels }: RunResultsProps) => {
  const { Results } = RUN_KIND_RESULTS[run.kind];
  return <Results run={run} mechanismLabels={mechanismLabels} />;
};

type RunViewProps = {
  run: Run;
  /** Mechanism name → label, in catalogue order; names are shown for missing ones. */
  mechanismLabels?: ReadonlyMap<string, string>;
  /** Cancel and retry (see ./run-actions.tsx); left out on a shared page. */
  actions?: ReactNode;
};

const TARGET_ROLE_LABELS: Record<string, string> = { gateway: 'Gateway', server: 'CoAP server' };

/** The device serving the run as its MQTT-SN gateway or CoAP server, in one line. */
export const describeTarget = (target: NonNullable<Run['target']>): string =>
  `${TARGET_ROLE_LABELS[target.role] ?? target.role}: ${target.name || target.device_id}` +
  `${target.address ? ` at ${target.address}` : ''}, ${target.status}`;

/** Every status change of the run with its time, oldest first. */
const RunTimeline = ({ run }: { run: Run }) => (
  <section className="panel" aria-labelledby="timeline-heading">
    <h2 id="timeline-heading" className="panel-title">
      Status changes
    </h2>
    <ol className="timeline">
      {run.transitions.map((transition) => (
        <li key={`${transition.status}@${transition.at}`}>
          <StatusBadge status={transition.status} /> <time dateTime={transition.at}>{formatDateTime(transition.at)}</time>
        </li>
      ))}
    </ol>
  </section>
);

export const RunView = ({ run, mechanismLabels = NO_LABELS, actions }: RunViewProps) => {
  const finished = isRunFinished(run.status);
  const measured = showsMeasuredResults(run);
  const deviceErrors = run.devices.filter((device) => device.error);
  const interval = run.kind === 'messaging' ? describeInterval(run.spec) : null;
  // On a shared page: read-only, no links into the workspace, no downloads.
  const { shared } = useResultsSource();

  return (
    <>
      <h1>Run: {run.experiment.name}</h1>
      {run.cell_label || run.repeat > 1 ? (
        <p className="run-cell">
          {run.cell_label}
          {run.repeat > 1 ? <span className="muted"> · repeat {run.repeat}</span> : null}
        </p>
      ) : null}
      <p className="run-meta">
        <StatusBadge status={run.status} prefix="Status: " role="status" />
        {actions}
        {interval ? <span>{interval}</span> : null}
        <span className="muted">
          Started {formatDateTime(run.started_at)} · Finished {formatDateTime(run.finished_at)}
        </span>
        {shared ? null : <Link to={paths.experiment.getHref(run.experiment.id)}>Back to experiment</Link>}
        {!shared && run.status === 'done' && run.kind === 'messaging' ? (
          <Link to={paths.compare.getHref([run.id])}>Compare with…</Link>
        ) : null}
      </p>
      {run.target ? <p className="run-target">{describeTarget(run.target)}</p> : null}

      {run.status === 'queued' && run.waiting_for ? <RunWaiting waiting={run.waiting_for} /> : null}
      {run.status === 'failed' ? (
        <ErrorAlert title="The run failed." message={run.error || 'No reason was given.'} />
      ) : null}
      {run.status === 'partial' ? (
        <p className="alert" role="note">
          <strong>The run is partial: not every planned message was measured and stored.</strong> The
          figures below cover what was stored. {run.error}
        </p>
      ) : null}
      {run.status === 'cancelled' ? (
        <p className="alert">
          <strong>The run was cancelled.</strong> {run.error}
          {measured ? ' The figures below cover what was measured and stored before it stopped.' : null}
        </p>
      ) : null}
      {run.retry_of && !shared ? (
        <p className="muted">
          A retry of <Link to={paths.run.getHref(run.retry_of)}>an earlier run</Link>.
        </p>
      ) : null}
      {run.status !== 'done' && deviceErrors.length > 0 ? (
        <section className="panel" aria-labelledby="device-errors-heading">
          <h2 id="device-errors-heading" className="panel-title">
            Device errors
          </h2>
          <ul>
            {deviceErrors.map((device) => (
              <li key={device.device_id}>
                <strong>{device.name}:</strong> {device.error}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {finished ? null : <RunProgress devices={run.devices} kind={run.kind} startedAt={run.started_at} />}
      {run.transitions.length > 0 ? <RunTimeline run={run} /> : null}
      <NetworkConditions run={run} />
      <ClockOffsets run={run} />
      <RunResources run={run} />

      {measured ? (
        <>
          <KindResults run={run} mechanismLabels={mechanismLabels} />
          {shared ? <MethodsParagraph runId={run.id} /> : <RunExports runId={run.id} kind={run.kind} />}
        </>
      ) : null}
    </>
  );
};
