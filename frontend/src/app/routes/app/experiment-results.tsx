import { Link, useParams } from 'react-router';

import { Loading } from '@/components/ui/loading';
import { LoadError } from '@/components/ui/not-found';
import { paths } from '@/config/paths';
import { useExperiment } from '@/features/experiments/api/get-experiment';
import { ExperimentResultsView } from '@/features/runs/components/experiment-results-view';

// The route joins the features: experiments names the experiment, runs draws its results.
const ExperimentResultsRoute = () => {
  const { id = '' } = useParams();
  const experiment = useExperiment({ experimentId: id });
  if (experiment.isPending) return <Loading />;
  if (experiment.isError) return <LoadError error={experiment.error} />;
  return (
    <>
      <h1>Results of {experiment.data.name}</h1>
      <p>
        <Link to={paths.experiment.getHref(id)}>Back to the experiment</Link>
      </p>
      <ExperimentResultsView experimentId={id} title={experiment.data.name} />
    </>
  );
};

export default ExperimentResultsRoute;
