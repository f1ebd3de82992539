import { useNavigate } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';
import { useDevices } from '@/features/devices/api/get-devices';
import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { ExperimentForm } from '@/features/experiments/components/experiment-form';
import { useNetworkProfiles } from '@/features/network-profiles/api/get-network-profiles';

// The route joins the features: experiments imports neither devices nor network-profiles.
const NewExperimentRoute = () => {
  const navigate = useNavigate();
  const devices = useDevices();
  // The form's kinds and mechanisms: it cannot be filled in without them.
  const catalogue = useCatalogue();
  // The network profiles a messaging experiment may use. Waited for, so a choice is not lost
  // to a late list; if they fail, the form still works without shaping.
  const networkProfiles = useNetworkProfiles();

  return (
    <>
      <h1>New experiment</h1>
      {devices.isPending || catalogue.isPending || networkProfiles.isPending ? (
        <Loading label="Loading the form…" />
      ) : null}
      {devices.isError ? <ErrorAlert error={devices.error} /> : null}
      {catalogue.isError ? <ErrorAlert error={catalogue.error} /> : null}
      {networkProfiles.isError ? (
        <ErrorAlert
          error={networkProfiles.error}
          title="The network profiles could not be loaded; experiments run without shaping."
        />
      ) : null}
      {devices.data && catalogue.data && !networkProfiles.isPending ? (
        <ExperimentForm
          devices={devices.data}
          catalogue={catalogue.data}
          networkProfiles={networkProfiles.data}
          onCreated={(experiment) => void navigate(paths.experiment.getHref(experiment.id))}
          onRunStarted={(run) => void navigate(paths.run.getHref(run.id))}
        />
      ) : null}
    </>
  );
};

export default NewExperimentRoute;
