import { Link } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';
import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { useExperiments } from '@/features/experiments/api/get-experiments';
import { ExperimentsList } from '@/features/experiments/components/experiments-list';

const ExperimentsRoute = () => {
  const experiments = useExperiments();
  // Only for the kinds' labels; the list works without it.
  const catalogue = useCatalogue();
  return (
    <>
      <div className="page-head">
        <h1>Experiments</h1>
        <Link to={paths.newExperiment.getHref()} className="button button-primary">
          New experiment
        </Link>
      </div>
      {experiments.isPending ? <Loading /> : null}
      {experiments.isError ? <ErrorAlert error={experiments.error} /> : null}
      {experiments.data ? <ExperimentsList experiments={experiments.data} catalogue={catalogue.data} /> : null}
    </>
  );
};

export default ExperimentsRoute;
