import type { RunStatus } from '@/types/api';

type StatusBadgeProps = {
  status: string;
  /** Visible prefix, e.g. "Status: ". */
  prefix?: string;
  role?: 'status';
};

/**
 * What each run status means, shown as the badge's tooltip. The badge itself shows the
 * status word (queued, preparing, running, ingesting, done, partial, failed, cancelled), which is
 * also what the end-to-end tests wait for.
 */
export const RUN_STATUS_DESCRIPTIONS: Record<RunStatus, string> = {
  queued: 'Waiting for its turn: the runs of an experiment go one after another, one run per device at a time.',
  preparing: 'Checking the devices and sending them their jobs.',
  running: 'The devices are measuring.',
  ingesting: 'The devices finished; their measurements are being stored.',
  done: 'Finished: every measurement is stored.',
  partial: 'Finished, but not every planned message was measured and stored; the run page says which device stopped and why.',
  failed: 'Stopped by an error; the run page says why.',
  cancelled: 'Cancelled before it finished; what was measured until then is kept.',
};

const isRunStatus = (status: string): status is RunStatus => status in RUN_STATUS_DESCRIPTIONS;

/** Coloured pill for a status: a run's (queued … done, partial, failed, cancelled), a device's, a trace's. */
export const StatusBadge = ({ status, prefix = '', role }: StatusBadgeProps) => (
  <span
    className={`badge badge-${status}`}
    role={role}
    title={isRunStatus(status) ? RUN_STATUS_DESCRIPTIONS[status] : undefined}
  >
    {prefix}
    {status}
  </span>
);
