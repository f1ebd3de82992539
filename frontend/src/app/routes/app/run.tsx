import { useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useNavigate, useParams } from 'react-router';

import { ChartSubject } from '@/components/charts';
import { Loading } from '@/components/ui/loading';
import { LoadError } from '@/components/ui/not-found';
import { paths } from '@/config/paths';
import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { EXPERIMENTS_QUERY_KEY } from '@/features/experiments/api/get-experiments';
import { RunPowerTraces } from '@/features/power/components/run-power-traces';
import { hasMeasuredResults, useRun } from '@/features/runs/api/get-run';
import { RunActions } from '@/features/runs/components/run-actions';
import { RunView } from '@/features/runs/components/run-view';
import { SharePanel } from '@/features/sharing/components/share-panel';

// The route joins the features: runs imports neither experiments nor power.
const RunRoute = () => {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const run = useRun({ runId: id });
  // Only for mechanism labels (and their order); the page works without them.
  const catalogue = useCatalogue();
  const mechanismLabels = useMemo(
    () => new Map((catalogue.data?.mechanisms ?? []).map((m) => [m.name, m.label])),
    [catalogue.data],
  );
  const runDevices = useMemo(
    () => (run.data?.devices ?? []).map((d) => ({ id: d.device_id, name: d.name })),
    [run.data?.devices],
  );

  // Keep showing the last good data if one poll fails; the next poll may succeed.
  if (run.data) {
    return (
      // Every chart of the page downloads with the run's label in its image and file name.
      <ChartSubject subject={[run.data.experiment.name, run.data.cell_label].filter(Boolean).join(' · ')}>
        <RunView
          run={run.data}
          mechanismLabels={mechanismLabels}
          actions={
            <RunActions
              run={run.data}
              // The experiment page lists its runs' statuses: refresh it too.
              onChanged={() => void queryClient.invalidateQueries({ queryKey: EXPERIMENTS_QUERY_KEY })}
              onRetried={(retry) => void navigate(paths.run.getHref(retry.id))}
            />
          }
        />
        {/* Only measured results are shared: the API refuses a run still under way. */}
        {hasMeasuredResults(run.data.status) ? (
          <SharePanel target={{ kind: 'run', run: run.data.id }} filter={{ run: run.data.id }} />
        ) : null}
        <RunPowerTraces
          runId={run.data.id}
          devices={runDevices}
          onUploaded={(trace) => void navigate(paths.powerTrace.getHref(trace.id))}
        />
      </ChartSubject>
    );
  }
  if (run.isError) return <LoadError error={run.error} />;
  return <Loading />;
};

export default RunRoute;
