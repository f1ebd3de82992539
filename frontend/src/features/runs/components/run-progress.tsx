import type { ExperimentKind, RunDevice } from '@/types/api';

type RunProgressProps = { devices: RunDevice[]; kind: ExperimentKind };

const percent = (part: number, total: number) =>
  total > 0 ? Math.min(100, Math.max(0, (part / total) * 100)) : 0;

// What `sent`/`total` count for kinds that report work done rather than messages.
const UNITS_DONE: Partial<Record<ExperimentKind, string>> = {
  cipher_bench: 'repetitions',
  throughput: 'windows',
};

/**
 * Live per-device progress. Messaging: the bar tracks messages sent, the text messages
 * echoed back. Cipher benchmark: `sent`/`total` count repetitions done and planned;
 * throughput: windows (two per mechanism, payload size and repetition).
 */
export const RunProgress = ({ devices, kind }: RunProgressProps) => {
  const unit = UNITS_DONE[kind];
  return (
    <section className="panel" aria-labelledby="progress-heading">
      <h2 id="progress-heading" className="panel-title">
        Progress
      </h2>
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
