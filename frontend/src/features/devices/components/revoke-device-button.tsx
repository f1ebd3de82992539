import { ConfirmActionButton } from '@/components/ui/confirm-action-button';
import type { Device } from '@/types/api';

import { useRevokeDevice } from '../api/revoke-device';

type RevokeDeviceButtonProps = { device: Pick<Device, 'id' | 'name'> };

/**
 * Revoke with a second, explicit click: the agent cannot come back without a new enrollment.
 * The server refuses while the device has queued or running runs, and says which.
 */
export const RevokeDeviceButton = ({ device }: RevokeDeviceButtonProps) => {
  const revoke = useRevokeDevice();
  return (
    <ConfirmActionButton
      label="Revoke"
      question={`Revoke ${device.name}? Its agent stops working and gets no more runs.`}
      confirmLabel="Yes, revoke"
      onConfirm={() => revoke.mutate({ deviceId: device.id })}
      isPending={revoke.isPending}
      error={revoke.isError ? revoke.error : null}
    />
  );
};
