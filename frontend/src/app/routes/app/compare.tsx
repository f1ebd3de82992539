import { useMemo } from 'react';
import { useSearchParams } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { useExperiments } from '@/features/experiments/api/get-experiments';
import { ComparePicker, type CompareCandidate } from '@/features/runs/components/compare-picker';
import { CompareView } from '@/features/runs/components/compare-view';
import { SharePanel } from '@/features/sharing/components/share-panel';
import { formatDateTime } from '@/lib/format';
import type { Experiment } from '@/types/api';

const RUN_PARAM = 'run';

/** Completed messaging runs, newest first: the only runs with round trips to compare. */
const compareCandidates = (experiments: readonly Experiment[]): CompareCandidate[] =>
  experiments
    .filter((experiment) => experiment.kind === 'messaging')
    .flatMap((experiment) =>
      experiment.runs
        .filter((run) => run.status === 'done')
        .map((run) => ({
          run,
          label: `${experiment.name}${run.cell_label ? ` · ${run.cell_label}` : ''}, run of ${formatDateTime(run.created_at)}`,
        })),
    )
    .sort((a, b) => b.run.created_at.localeCompare(a.run.created_at))
    .map(({ run, label }) => ({ id: run.id, label }));

// The route joins the features: runs compares, experiments lists what can be compared.
// The selection lives in the URL (?run=<id>&run=<id>), so a comparison can be shared.
const CompareRoute = () => {
  const [searchParams, setSearchParams] = useSearchParams();
  const runIds = useMemo(() => searchParams.getAll(RUN_PARAM), [searchParams]);
  const experiments = useExperiments();
  const candidates = useMemo(() => compareCandidates(experiments.data ?? []), [experiments.data]);

  const select = (selection: string[]) =>
    setSearchParams(new URLSearchParams(selection.map((id) => [RUN_PARAM, id])));

  return (
    <>
      <h1>Compare runs</h1>
      <section className="panel" aria-labelledby="compare-picker-heading">
        <h2 id="compare-picker-heading" className="panel-title">
          Choose runs
        </h2>
        {experiments.isPending ? <Loading label="Loading runs…" /> : null}
        {experiments.isError ? <ErrorAlert error={experiments.error} /> : null}
        {experiments.data ? <ComparePicker candidates={candidates} selected={runIds} onChange={select} /> : null}
      </section>
      <CompareView runIds={runIds} />
      {runIds.length >= 2 ? (
        // Listed by the first run; the panel keeps the links of exactly these runs.
        <SharePanel target={{ kind: 'comparison', runs: runIds }} filter={{ run: runIds[0] }} />
      ) : null}
    </>
  );
};

export default CompareRoute;
