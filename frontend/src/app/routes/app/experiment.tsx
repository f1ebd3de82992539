import { useMemo } from 'react';
import { useNavigate, useParams } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';
import { useDevices } from '@/features/devices/api/get-devices';
import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { useExperiment } from '@/features/experiments/api/get-experiment';
import { ExperimentDetails } from '@/features/experiments/components/experiment-details';
import { SharePanel } from '@/features/sharing/components/share-panel';

const ExperimentRoute = () => {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const experiment = useExperiment({ experimentId: id });
  // Only for device names; the page works without them.
  const devices = useDevices();
  const deviceNames = useMemo(
    () => new Map((devices.data ?? []).map((device) => [device.id, device.name])),
    [devices.data],
  );
  // Only for labels of the kind and mechanisms, likewise.
  const catalogue = useCatalogue();

  if (experiment.isPending) return <Loading />;
  if (experiment.isError) return <ErrorAlert error={experiment.error} />;

  return (
    <>
      <h1>{experiment.data.name}</h1>
      <ExperimentDetails
        experiment={experiment.data}
        deviceNames={deviceNames}
        catalogue={catalogue.data}
        onRunStarted={(run) => void navigate(paths.run.getHref(run.id))}
      />
      <SharePanel target={{ kind: 'experiment', experiment: id }} filter={{ experiment: id }} />
    </>
  );
};

export default ExperimentRoute;
