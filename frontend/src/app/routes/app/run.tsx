import { useParams } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { useRun } from '@/features/runs/api/get-run';
import { RunView } from '@/features/runs/components/run-view';

const RunRoute = () => {
  const { id = '' } = useParams();
  const run = useRun({ runId: id });

  // Keep showing the last good data if one poll fails; the next poll may succeed.
  if (run.data) return <RunView run={run.data} />;
  if (run.isError) return <ErrorAlert error={run.error} />;
  return <Loading />;
};

export default RunRoute;
