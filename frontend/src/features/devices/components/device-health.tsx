import { ErrorAlert } from '@/components/ui/error-alert';
import { StatusBadge } from '@/components/ui/status-badge';
import { formatDateTime } from '@/lib/format';
import type { Device } from '@/types/api';

import { useCheckDeviceHealth } from '../api/check-device-health';

/** A device's latest health check, in brief (DeviceDetails has it in full), and a button to run a new one. */
type DeviceHealthCellProps = {
  device: Pick<Device, 'id' | 'name' | 'online' | 'health'>;
  /** Called when the user starts a check (the table then opens the device's details). */
  onCheck?: () => void;
};

export const DeviceHealthCell = ({ device, onCheck }: DeviceHealthCellProps) => {
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
      {health?.status === 'failed' ? <p className="field-error">Failed: see the details.</p> : null}
      <button
        type="button"
        className="button button-small"
        aria-label={`Check health of ${device.name}`}
        disabled={check.isPending || pending || !device.online}
        title={device.online ? undefined : 'The device is offline: start its agent first.'}
        onClick={() => {
          onCheck?.();
          check.mutate({ deviceId: device.id });
        }}
      >
        Check health
      </button>
      {check.isError ? <ErrorAlert error={check.error} title="The health check could not start." /> : null}
    </div>
  );
};
