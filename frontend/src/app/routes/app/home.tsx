import { useMemo } from 'react';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { useCheckDeviceHealth } from '@/features/devices/api/check-device-health';
import { useDevices } from '@/features/devices/api/get-devices';
import { useExperiments } from '@/features/experiments/api/get-experiments';
import { HomeView, recentRunsOf } from '@/features/home/components/home-view';

// Devices come online as agents start; a health check takes seconds: look again soon.
const DEVICES_POLL_INTERVAL_MS = 5000;
const HEALTH_POLL_INTERVAL_MS = 1000;

// The route joins the features: home imports neither devices nor experiments.
const HomeRoute = () => {
  const devices = useDevices({
    queryConfig: {
      refetchInterval: (query) =>
        query.state.data?.some((d) => d.health?.status === 'pending') ? HEALTH_POLL_INTERVAL_MS : DEVICES_POLL_INTERVAL_MS,
    },
  });
  const experiments = useExperiments();
  const checkHealth = useCheckDeviceHealth();
  const recentRuns = useMemo(() => recentRunsOf(experiments.data ?? []), [experiments.data]);
  const error = devices.error ?? experiments.error ?? checkHealth.error;

  return (
    <>
      <h1>Home</h1>
      {error ? <ErrorAlert error={error} /> : null}
      {devices.data && experiments.data ? (
        <HomeView
          devices={devices.data}
          experimentCount={experiments.data.length}
          latestExperimentId={experiments.data[0]?.id ?? null}
          recentRuns={recentRuns}
          onCheckHealth={(deviceId) => checkHealth.mutate({ deviceId })}
          checkingDeviceId={checkHealth.isPending ? (checkHealth.variables?.deviceId ?? null) : null}
        />
      ) : error ? null : (
        <Loading />
      )}
    </>
  );
};

export default HomeRoute;
