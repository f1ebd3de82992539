import type { ExperimentKind, RunDevice } from '@/types/api';

type RunProgressProps = { devices: RunDevice[]; kind: ExperimentKind };

const percent = (part: number, total: number) =>
  total > 0 ? Math.min(100, Math.max(0, (part / total) * 100)) : 0;

/**
 * Live per-device progress. Messaging: the bar tracks messages sent, the text messages
 * echoed back. Cipher benchmark: `sent`/`total` count repetitions done and planned.
 */
export const RunProgress = ({ devices, kind }: RunProgressProps) => (
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
                kind === 'cipher_bench'
                  ? `${device.sent} of ${device.total} repetitions done`
                  : `${device.sent} of ${device.total} sent`
              }
              className="progress"
            >
              <div className="progress-bar" style={{ width: `${percent(device.sent, device.total)}%` }} />
            </div>
            <p className="progress-text">
              {kind === 'cipher_bench' ? (
                <>{device.sent}/{device.total} repetitions done</>
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
