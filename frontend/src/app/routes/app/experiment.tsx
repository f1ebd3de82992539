import { useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link, useNavigate, useParams } from 'react-router';

import { Loading } from '@/components/ui/loading';
import { LoadError } from '@/components/ui/not-found';
import { paths } from '@/config/paths';
import { useDevices } from '@/features/devices/api/get-devices';
import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { useExperiment } from '@/features/experiments/api/get-experiment';
import { EXPERIMENTS_QUERY_KEY } from '@/features/experiments/api/get-experiments';
import { hasSeveralRuns } from '@/features/experiments/components/design-axes';
import { ExperimentDetails } from '@/features/experiments/components/experiment-details';
import { isRunFinished } from '@/features/runs/api/get-run';
import { RunActions } from '@/features/runs/components/run-actions';
import { SharePanel } from '@/features/sharing/components/share-panel';

/** How often the runs' statuses are refreshed while some are queued or under way. */
const EXPERIMENT_POLL_INTERVAL_MS = 2000;

// The route joins the features: experiments lists the runs, runs cancels and retries them.
const ExperimentRoute = () => {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const experiment = useExperiment({
    experimentId: id,
    queryConfig: {
      refetchInterval: (query) =>
        query.state.data?.runs.some((run) => !isRunFinished(run.status)) ? EXPERIMENT_POLL_INTERVAL_MS : false,
      // The runs change on the server: never show a stale list when coming back to the page.
      staleTime: 0,
    },
  });
  // Only for device names; the page works without them.
  const devices = useDevices();
  const deviceNames = useMemo(
    () => new Map((devices.data ?? []).map((device) => [device.id, device.name])),
    [devices.data],
  );
  // Only for labels of the kind and mechanisms, likewise.
  const catalogue = useCatalogue();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: EXPERIMENTS_QUERY_KEY });

  if (experiment.isPending) return <Loading />;
  if (experiment.isError) return <LoadError error={experiment.error} />;

  return (
    <>
      <h1>{experiment.data.name}</h1>
      <p>
        <Link to={paths.experimentResults.getHref(id)}>Results: figure and table of the cells</Link>
      </p>
      <ExperimentDetails
        experiment={experiment.data}
        deviceNames={deviceNames}
        catalogue={catalogue.data}
        // A matrix queues many runs: this page lists them live. A single run has its own page.
        onRunStarted={(run) => {
          if (!hasSeveralRuns(experiment.data)) void navigate(paths.run.getHref(run.id));
        }}
        renderRunActions={(run) => <RunActions run={run} name={`run ${run.position + 1}`} onChanged={refresh} />}
      />
      <SharePanel target={{ kind: 'experiment', experiment: id }} filter={{ experiment: id }} />
    </>
  );
};

export default ExperimentRoute;
