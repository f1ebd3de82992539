import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { StatusBadge } from '@/components/ui/status-badge';
import { paths } from '@/config/paths';
import { formatDateTime } from '@/lib/format';
import type { Device, RunBrief } from '@/types/api';

/** A run of the recent-runs list, with the experiment it belongs to. */
export type RecentRun = RunBrief & { experimentId: string; experimentName: string };

// A landing page shows the latest few; the experiments list has them all.
export const RECENT_RUNS_SHOWN = 5;

export type HomeViewProps = {
  devices: readonly Device[];
  /** How many experiments the workspace has (a design exists: step 2 done). */
  experimentCount: number;
  /** The newest experiment, where "Start run" is (step 3). */
  latestExperimentId: string | null;
  /** Newest first. */
  recentRuns: readonly RecentRun[];
  onCheckHealth: (deviceId: string) => void;
  /** The device whose health check is being asked for. */
  checkingDeviceId: string | null;
};

/** The newest runs of all experiments, newest first (RECENT_RUNS_SHOWN of them). */
export const recentRunsOf = (
  experiments: readonly { id: string; name: string; runs: readonly RunBrief[] }[],
): RecentRun[] =>
  experiments
    .flatMap((e) => e.runs.map((run) => ({ ...run, experimentId: e.id, experimentName: e.name })))
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, RECENT_RUNS_SHOWN);

const healthWords = (device: Device): string => {
  const { health } = device;
  if (!health) return 'never checked';
  if (health.status === 'pending') return 'checking…';
  return `${health.status} ${formatDateTime(health.checked_at ?? health.requested_at)}`;
};

type StepProps = { number: number; title: string; done: boolean; children: ReactNode };

const Step = ({ number, title, done, children }: StepProps) => (
  <li className={`onboarding-step ${done ? 'onboarding-step-done' : ''}`} aria-label={`Step ${number}: ${title}`}>
    <h3>
      {number}. {title} <span className="muted">{done ? '(done)' : '(not done yet)'}</span>
    </h3>
    {children}
  </li>
);

/**
 * The first run, step by step, each step's state from the workspace's own data: a device
 * (enrolled, online, healthy), a design (a preset or a new one), a run.
 */
const FirstRunGuide = ({ devices, experimentCount, latestExperimentId, recentRuns }: HomeViewProps) => {
  const online = devices.filter((d) => d.online);
  const healthy = devices.some((d) => d.health?.status === 'passed');
  return (
    <section className="panel" aria-labelledby="first-run-heading">
      <h2 id="first-run-heading" className="panel-title">
        Your first run in three steps
      </h2>
      <ol className="onboarding-steps">
        <Step number={1} title="A device" done={online.length > 0}>
          {devices.length === 0 ? (
            <p>
              No device yet. <Link to={paths.devices.getHref()}>Enrol a device</Link>: create an enrolment token and
              start the agent on a Raspberry Pi or any Linux host.
            </p>
          ) : online.length === 0 ? (
            <p>
              {devices.length} enrolled, none online: start its agent, then see the{' '}
              <Link to={paths.devices.getHref()}>Devices</Link> page.
            </p>
          ) : (
            <p>
              {online.length} of {devices.length} online
              {healthy ? ', health checked' : ': run “Check health” below to test the broker, clock and crypto'}.
            </p>
          )}
        </Step>
        <Step number={2} title="A design" done={experimentCount > 0}>
          <p>
            Start from a <Link to={paths.newExperiment.getHref()}>paper’s preset</Link> (the form lists them) or{' '}
            <Link to={paths.newExperiment.getHref()}>design a new experiment</Link>.
          </p>
        </Step>
        <Step number={3} title="A run" done={recentRuns.length > 0}>
          {latestExperimentId ? (
            <p>
              Open <Link to={paths.experiment.getHref(latestExperimentId)}>your latest experiment</Link> and press
              “Start run”{online.length === 0 ? ' once a device is online' : ''}.
            </p>
          ) : (
            <p className="muted">Once you have a design, start it from its page.</p>
          )}
        </Step>
      </ol>
    </section>
  );
};

const DevicesStatus = ({ devices, onCheckHealth, checkingDeviceId }: HomeViewProps) => (
  <section className="panel" aria-labelledby="devices-status-heading">
    <h2 id="devices-status-heading" className="panel-title">
      Devices
    </h2>
    {devices.length === 0 ? (
      <p className="muted">
        No device enrolled. <Link to={paths.devices.getHref()}>Enrol one</Link>.
      </p>
    ) : (
      <div className="table-wrap">
        <table className="table">
          <caption className="visually-hidden">Devices’ status</caption>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Status</th>
              <th scope="col">Last health check</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {devices.map((device) => (
              <tr key={device.id}>
                <th scope="row">{device.name}</th>
                <td>
                  <StatusBadge status={device.online ? 'online' : 'offline'} />
                </td>
                <td>{healthWords(device)}</td>
                <td>
                  <button
                    type="button"
                    className="button button-small"
                    aria-label={`Check health of ${device.name}`}
                    disabled={!device.online || checkingDeviceId === device.id || device.health?.status === 'pending'}
                    onClick={() => onCheckHealth(device.id)}
                  >
                    Check health
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )}
  </section>
);

const RecentRuns = ({ recentRuns }: { recentRuns: readonly RecentRun[] }) => (
  <section className="panel" aria-labelledby="recent-runs-heading">
    <h2 id="recent-runs-heading" className="panel-title">
      Recent runs
    </h2>
    <div className="table-wrap">
      <table className="table">
        <caption className="visually-hidden">Recent runs</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {recentRuns.map((run) => (
            <tr key={run.id}>
              <th scope="row">
                <Link to={paths.run.getHref(run.id)}>
                  {run.experimentName}
                  {run.cell_label ? ` · ${run.cell_label}` : ''}
                </Link>
              </th>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td>{formatDateTime(run.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    <p>
      <Link to={paths.experiments.getHref()}>All experiments</Link>
    </p>
  </section>
);

/** The landing page after sign-in: the guide until a first run exists, devices' status, recent runs. */
export const HomeView = (props: HomeViewProps) => (
  <>
    <div className="actions">
      <Link to={paths.newExperiment.getHref()} className="button button-primary">
        New experiment
      </Link>
      <Link to={paths.experiments.getHref()} className="button">
        Experiments
      </Link>
    </div>
    {props.recentRuns.length === 0 ? <FirstRunGuide {...props} /> : null}
    <DevicesStatus {...props} />
    {props.recentRuns.length > 0 ? <RecentRuns recentRuns={props.recentRuns} /> : null}
  </>
);
