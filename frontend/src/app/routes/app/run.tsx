import { useMemo } from 'react';
import { useParams } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { useRun } from '@/features/runs/api/get-run';
import { RunView } from '@/features/runs/components/run-view';

// The route joins the two features: runs must not import from experiments.
const RunRoute = () => {
  const { id = '' } = useParams();
  const run = useRun({ runId: id });
  // Only for mechanism labels (and their order); the page works without them.
  const catalogue = useCatalogue();
  const mechanismLabels = useMemo(
    () => new Map((catalogue.data?.mechanisms ?? []).map((m) => [m.name, m.label])),
    [catalogue.data],
  );

  // Keep showing the last good data if one poll fails; the next poll may succeed.
  if (run.data) return <RunView run={run.data} mechanismLabels={mechanismLabels} />;
  if (run.isError) return <ErrorAlert error={run.error} />;
  return <Loading />;
};

export default RunRoute;
