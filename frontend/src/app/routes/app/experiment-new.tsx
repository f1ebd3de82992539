import { useNavigate } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';
import { useDevices } from '@/features/devices/api/get-devices';
import { ExperimentForm } from '@/features/experiments/components/experiment-form';

// The route joins the two features: experiments must not import from devices.
const NewExperimentRoute = () => {
  const navigate = useNavigate();
  const devices = useDevices();

  return (
    <>
      <h1>New experiment</h1>
      {devices.isPending ? <Loading label="Loading devices…" /> : null}
      {devices.isError ? <ErrorAlert error={devices.error} /> : null}
      {devices.data ? (
        <ExperimentForm
          devices={devices.data}
          onCreated={(experiment) => void navigate(paths.experiment.getHref(experiment.id))}
          onRunStarted={(run) => void navigate(paths.run.getHref(run.id))}
        />
      ) : null}
    </>
  );
};

export default NewExperimentRoute;
