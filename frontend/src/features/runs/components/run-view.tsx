import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { StatusBadge } from '@/components/ui/status-badge';
import { paths } from '@/config/paths';
import { formatDateTime } from '@/lib/format';
import type { Run } from '@/types/api';

import { isRunFinished, showsMeasuredResults } from '../api/get-run';
import { useResultsSource } from '../api/results-api';

import { BenchResults } from './bench-results';
import { measuresOneWay } from './clock-offset-data';
import { ClockOffsets } from './clock-offsets';
import { describeInterval } from './interval-spec';
import { NetworkConditions } from './network-conditions';
import { RunCharts } from './run-charts';
import { MethodsParagraph, RunExports } from './run-exports';
import { RunProgress } from './run-progress';
import { RunStatisticsPanel } from './run-statistics';
import { RunSummaryTable } from './run-summary-table';
import { RunSizeBreakdown } from './size-breakdown';
import { ThroughputResults } from './throughput-results';

const NO_SECURITY = 'none';
const NO_LABELS: ReadonlyMap<string, string> = new Map();

/** The payload security a messaging run used, from the spec it was dispatched with. */
const securityOf = (run: Run): string =>
  typeof run.spec.security === 'string' ? run.spec.security : NO_SECURITY;

/** Whether the run timed a mechanism on each message: a payload security mechanism, or
 * SRUP's signatures (its spec's `security` is always none). */
const timesSecuring = (run: Run): boolean => securityOf(run) !== NO_SECURITY || run.spec.protocol === 'srup';

type RunViewProps = {
  run: Run;
  /** Mechanism name → label, in catalogue order; names are shown for missing ones. */
  mechanismLabels?: ReadonlyMap<string, string>;
  /** Cancel and retry (see ./run-actions.tsx); left out on a shared page. */
  actions?: ReactNode;
};

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

      {measured && run.kind === 'cipher_bench' ? (
        <BenchResults rows={run.bench_summary} mechanismLabels={mechanismLabels} />
      ) : null}
      {measured && run.kind === 'throughput' ? (
        <ThroughputResults rows={run.bench_summary} mechanismLabels={mechanismLabels} />
      ) : null}
      {measured && run.kind !== 'messaging' ? (
        shared ? (
          <MethodsParagraph runId={run.id} />
        ) : (
          <RunExports runId={run.id} kind={run.kind} />
        )
      ) : null}
      {/* Only messaging runs have round trips: the results endpoints but exports and methods
          answer the others with 400 run_has_no_round_trips, so they are never called for them. */}
      {measured && run.kind === 'messaging' ? (
        <>
          <RunCharts runId={run.id} oneWay={measuresOneWay(run.spec)} />
          <RunStatisticsPanel runId={run.id} />
          <RunSizeBreakdown runId={run.id} mechanismLabels={mechanismLabels} />
          {timesSecuring(run) ? (
            <div className="panel">
              <RunSummaryTable rows={run.summary} />
            </div>
          ) : null}
          {shared ? <MethodsParagraph runId={run.id} /> : <RunExports runId={run.id} kind={run.kind} />}
        </>
      ) : null}
    </>
  );
};
