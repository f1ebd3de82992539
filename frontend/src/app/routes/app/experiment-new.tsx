import { useNavigate } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';
import { useDevices } from '@/features/devices/api/get-devices';
import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { ExperimentForm } from '@/features/experiments/components/experiment-form';

// The route joins the two features: experiments must not import from devices.
const NewExperimentRoute = () => {
  const navigate = useNavigate();
  const devices = useDevices();
  // The form's kinds and mechanisms: it cannot be filled in without them.
  const catalogue = useCatalogue();

  return (
    <>
      <h1>New experiment</h1>
      {devices.isPending || catalogue.isPending ? <Loading label="Loading the form…" /> : null}
      {devices.isError ? <ErrorAlert error={devices.error} /> : null}
      {catalogue.isError ? <ErrorAlert error={catalogue.error} /> : null}
      {devices.data && catalogue.data ? (
        <ExperimentForm
          devices={devices.data}
          catalogue={catalogue.data}
          onCreated={(experiment) => void navigate(paths.experiment.getHref(experiment.id))}
          onRunStarted={(run) => void navigate(paths.run.getHref(run.id))}
        />
      ) : null}
    </>
  );
};

export default NewExperimentRoute;
