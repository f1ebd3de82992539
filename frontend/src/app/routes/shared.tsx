import { useMemo } from 'react';
import { useParams } from 'react-router';

import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { ResultsSourceContext, type ResultsSource } from '@/features/runs/api/results-api';
import { CompareView } from '@/features/runs/components/compare-view';
import { ExperimentResultsView } from '@/features/runs/components/experiment-results-view';
import { RunView } from '@/features/runs/components/run-view';
import { sharedApiBase } from '@/features/sharing/api/get-shared-content';
import { SharedPage } from '@/features/sharing/components/shared-page';

// Outside the signed-in layout: a shared link works without an account, and its page shows
// no navigation into the workspace. The route joins the features: sharing frames the page,
// runs shows the results from the link's public API, the (public) catalogue labels them.
const SharedRoute = () => {
  const { token = '' } = useParams();
  const catalogue = useCatalogue();
  const mechanismLabels = useMemo(
    () => new Map((catalogue.data?.mechanisms ?? []).map((m) => [m.name, m.label])),
    [catalogue.data],
  );
  const source = useMemo<ResultsSource>(() => ({ apiBase: sharedApiBase(token), runHref: null, shared: true }), [token]);
  return (
    <>
      <header className="app-header">
        <span className="brand">IoTSecBench</span>
      </header>
      <main className="page">
        <ResultsSourceContext.Provider value={source}>
          <SharedPage
            token={token}
            mechanismLabels={mechanismLabels}
            renderRun={(run) => <RunView run={run} mechanismLabels={mechanismLabels} />}
            renderComparison={(runIds) => <CompareView runIds={runIds} />}
            renderExperimentResults={(experiment) => (
              <ExperimentResultsView experimentId={experiment.id} title={experiment.name} />
            )}
          />
        </ResultsSourceContext.Provider>
      </main>
    </>
  );
};

export default SharedRoute;
