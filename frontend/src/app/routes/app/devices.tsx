import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { useDevices } from '@/features/devices/api/get-devices';
import { DevicesTable } from '@/features/devices/components/devices-table';
import { EnrollmentTokenPanel } from '@/features/devices/components/enrollment-token-panel';

// Online/offline changes as agents connect; refresh while the page is open.
const DEVICES_POLL_INTERVAL_MS = 5000;
// A health check takes a few seconds: look sooner while one is under way.
const HEALTH_POLL_INTERVAL_MS = 1000;

const DevicesRoute = () => {
  const devices = useDevices({
    queryConfig: {
      refetchInterval: (query) =>
        query.state.data?.some((device) => device.health?.status === 'pending')
          ? HEALTH_POLL_INTERVAL_MS
          : DEVICES_POLL_INTERVAL_MS,
    },
  });
  return (
    <>
      <h1>Devices</h1>
      {devices.isPending ? <Loading /> : null}
      {devices.isError ? <ErrorAlert error={devices.error} /> : null}
      {devices.data ? <DevicesTable devices={devices.data} /> : null}
      <EnrollmentTokenPanel />
    </>
  );
};

export default DevicesRoute;
