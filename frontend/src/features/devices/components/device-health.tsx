import { ErrorAlert } from '@/components/ui/error-alert';
import { StatusBadge } from '@/components/ui/status-badge';
import { formatDateTime } from '@/lib/format';
import type { Device } from '@/types/api';

import { useCheckDeviceHealth } from '../api/check-device-health';

/** A device's latest health check and a button to run a new one. */
export const DeviceHealthCell = ({ device }: { device: Pick<Device, 'id' | 'name' | 'online' | 'health'> }) => {
  const check = useCheckDeviceHealth();
  const { health } = device;
  const pending = health?.status === 'pending';
  return (
    <div className="device-health">
      {health ? (
        <p>
          <StatusBadge status={health.status} />{' '}
          <span className="muted">
            {pending ? 'Checking…' : `at ${formatDateTime(health.checked_at ?? health.requested_at)}`}
          </span>
        </p>
      ) : (
        <p className="muted">Not checked yet</p>
      )}
      {health?.error ? <p className="field-error">{health.error}</p> : null}
      {health?.checks && health.checks.length > 0 ? (
        <ul className="health-checks" aria-label={`Health checks of ${device.name}`}>
          {health.checks.map((item) => (
            <li key={item.name}>
              {item.ok ? '✓' : '✗'} <strong>{item.name}</strong>
              {item.detail ? `: ${item.detail}` : ''}
            </li>
          ))}
        </ul>
      ) : null}
      <button
        type="button"
        className="button button-small"
        aria-label={`Check health of ${device.name}`}
        disabled={check.isPending || pending || !device.online}
        title={device.online ? undefined : 'The device is offline: start its agent first.'}
        onClick={() => check.mutate({ deviceId: device.id })}
      >
        Check health
      </button>
      {check.isError ? <ErrorAlert error={check.error} title="The health check could not start." /> : null}
    </div>
  );
};
