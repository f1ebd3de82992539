import { useNow } from '@/hooks/use-now';
import { formatDuration } from '@/lib/format';
import type { ExperimentKind, RunDevice } from '@/types/api';

import { RUN_KIND_RESULTS } from '../kinds';

import { progressTimes } from './progress-estimate';

type RunProgressProps = {
  devices: RunDevice[];
  kind: ExperimentKind;
  /** When the run started (run.started_at); null while it waits its turn. */
  startedAt: string | null;
};

// The elapsed time and the estimate tick between two polls of the run.
const CLOCK_TICK_MS = 1000;

const percent = (part: number, total: number) =>
  total > 0 ? Math.min(100, Math.max(0, (part / total) * 100)) : 0;

/**
 * Live per-device progress. Messaging: the bar tracks messages sent, the text messages
 * echoed back. A kind that reports work done says what `sent`/`total` count (its
 * `progressUnit` in RUN_KIND_RESULTS: a cipher benchmark's repetitions, a throughput run's
 * windows), and the bar and text count that. Above them, the time
 * since the run started and an estimate of the time left (see ./progress-estimate.ts); the
 * page shows this panel only while the run is under way, so the clock ticks only then.
 */
export const RunProgress = ({ devices, kind, startedAt }: RunProgressProps) => {
  const unit = RUN_KIND_RESULTS[kind].progressUnit;
  const now = useNow(CLOCK_TICK_MS);
  const times = progressTimes(devices, startedAt, now);
  return (
    <section className="panel" aria-labelledby="progress-heading">
      <h2 id="progress-heading" className="panel-title">
        Progress
      </h2>
      {times ? (
        <dl className="params">
          <dt>Elapsed</dt>
          <dd>{formatDuration(times.elapsedMs)}</dd>
          <dt>Time left</dt>
          <dd>{times.leftMs === null ? 'estimating…' : `about ${formatDuration(times.leftMs)}`}</dd>
        </dl>
      ) : null}
      {devices.length === 0 ? (
        <p className="muted">Waiting for devices…</p>
      ) : (
        <ul className="progress-list">
          {devices.map((device) => (
            <li key={device.device_id} className="progress-item">
              <div className="progress-head">
                <span className="progress-name">{device.name}</span>
                <span className="muted">{device.status}</span>
              </div>
              <div
                role="progressbar"
                aria-label={`${device.name} progress`}
                aria-valuemin={0}
                aria-valuemax={device.total}
                aria-valuenow={device.sent}
                aria-valuetext={
                  unit
                    ? `${device.sent} of ${device.total} ${unit} done`
                    : `${device.sent} of ${device.total} sent`
                }
                className="progress"
              >
                <div className="progress-bar" style={{ width: `${percent(device.sent, device.total)}%` }} />
              </div>
              <p className="progress-text">
                {unit ? (
                  `${device.sent}/${device.total} ${unit} done`
                ) : (
                  <>
                    {device.received}/{device.total} received
                    <span className="muted"> · {device.sent} sent</span>
                  </>
                )}
                {device.records_ingested > 0 ? (
                  <span className="muted"> · {device.records_ingested} stored</span>
                ) : null}
              </p>
              {device.error ? <p className="field-error">{device.error}</p> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
};
