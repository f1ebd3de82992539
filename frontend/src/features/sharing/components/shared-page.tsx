import type { ReactNode } from 'react';
import { useSearchParams } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { StatusBadge } from '@/components/ui/status-badge';
import { isApiError } from '@/lib/api-client';
import { formatDataSize, formatDateTime } from '@/lib/format';
import { protocolSummary } from '@/lib/protocol-labels';
import type { Experiment, Run, SharedContent } from '@/types/api';

import { useSharedContent } from '../api/get-shared-content';

const NO_LABELS: ReadonlyMap<string, string> = new Map();

/** The query parameter of an experiment's page that says which of its runs is shown. */
export const SHARED_RUN_PARAM = 'run';

const DEFAULT_TITLES: Record<SharedContent['kind'], string> = {
  run: 'Shared run',
  comparison: 'Shared comparison',
  experiment: 'Shared experiment',
};

const Fact = ({ term, children }: { term: string; children: ReactNode }) => (
  <>
    <dt>{term}</dt>
    <dd>{children}</dd>
  </>
);

/**
 * What the runs talked to besides the platform's own broker and the agent's own servers: an
 * external broker, CoAP server, MQTT-SN gateway or UDP receiver. A link's API names each by a
 * neutral label ("external MQTT broker"), never its address (docs/sharing.md).
 */
const externalTargets = (experiment: Experiment): string[] =>
  [experiment.broker_url, experiment.coap_url, experiment.mqttsn_gateway, experiment.target_url].filter(
    (target) => target !== '',
  );

/** An experiment's design, as far as its kind uses it. */
const ExperimentDesign = ({ experiment, labelFor }: { experiment: Experiment; labelFor: (name: string) => string }) => (
  <section className="panel" aria-labelledby="design-heading">
    <h2 id="design-heading" className="panel-title">
      Design
    </h2>
    <dl className="params">
      <Fact term="Kind">{experiment.kind.replace('_', ' ')}</Fact>
      {experiment.kind === 'messaging' ? (
        <>
          <Fact term="Protocol">{protocolSummary(experiment)}</Fact>
          <Fact term="Payload security">{labelFor(experiment.security)}</Fact>
          <Fact term="Messages">
            {experiment.message_count} × {formatDataSize(experiment.payload_size)}
          </Fact>
        </>
      ) : (
        <>
          <Fact term="Mechanisms">{experiment.mechanisms.map(labelFor).join(', ')}</Fact>
          <Fact term="Data sizes">{experiment.data_sizes.map(formatDataSize).join(', ')}</Fact>
          <Fact term="Repetitions">{experiment.repetitions}</Fact>
        </>
      )}
      {externalTargets(experiment).length > 0 ? (
        <Fact term="External targets">{externalTargets(experiment).join(', ')}</Fact>
      ) : null}
      <Fact term="Devices">{experiment.device_ids.length}</Fact>
    </dl>
  </section>
);

/** How the shared page shows results: the route passes the results views (features/runs). */
type ResultsViews = {
  renderRun: (run: Run) => ReactNode;
  renderComparison: (runIds: string[]) => ReactNode;
  /** The experiment's results as a whole (figure, table, methods); none: not shown. */
  renderExperimentResults?: (experiment: Experiment) => ReactNode;
};

/** A shared experiment: its design, its results as a whole, its runs, and the chosen run's results. */
const SharedExperiment = ({
  experiment,
  runs,
  labels,
  renderRun,
  renderExperimentResults,
}: {
  experiment: Experiment;
  runs: Run[];
  labels: ReadonlyMap<string, string>;
  renderRun: ResultsViews['renderRun'];
  renderExperimentResults: ResultsViews['renderExperimentResults'];
}) => {
  const [searchParams, setSearchParams] = useSearchParams();
  const chosenId = searchParams.get(SHARED_RUN_PARAM);
  const chosen = runs.find((run) => run.id === chosenId) ?? runs.findLast((run) => run.status === 'done');
  const labelFor = (name: string) => labels.get(name) ?? name;
  return (
    <>
      <ExperimentDesign experiment={experiment} labelFor={labelFor} />
      {renderExperimentResults && runs.some((run) => run.status === 'done') ? (
        <section aria-labelledby="experiment-results-heading">
          <h2 id="experiment-results-heading">Results of the experiment</h2>
          {renderExperimentResults(experiment)}
        </section>
      ) : null}
      <section className="panel" aria-labelledby="runs-heading">
        <h2 id="runs-heading" className="panel-title">
          Runs
        </h2>
        {runs.length === 0 ? <p className="empty">This experiment has no runs yet.</p> : null}
        <ul className="shared-runs">
          {runs.map((run) => (
            <li key={run.id}>
              <button
                type="button"
                className="button button-small"
                aria-current={run.id === chosen?.id ? 'true' : undefined}
                onClick={() => setSearchParams(new URLSearchParams([[SHARED_RUN_PARAM, run.id]]))}
              >
                Run of {formatDateTime(run.created_at)}
              </button>{' '}
              <StatusBadge status={run.status} />
            </li>
          ))}
        </ul>
      </section>
      {chosen ? <div key={chosen.id}>{renderRun(chosen)}</div> : null}
    </>
  );
};

type SharedPageProps = ResultsViews & {
  token: string;
  /** Mechanism name → label (the public catalogue); names are shown without it. */
  mechanismLabels?: ReadonlyMap<string, string>;
};

/**
 * What a shared link shows, read-only and without login: a run, a comparison of runs, or
 * an experiment with its runs. The results views inside read the link's public API
 * (the route provides it to them; docs/sharing.md).
 */
export const SharedPage = ({
  token,
  mechanismLabels = NO_LABELS,
  renderRun,
  renderComparison,
  renderExperimentResults,
}: SharedPageProps) => {
  const content = useSharedContent({ token });

  if (content.isPending) return <Loading label="Loading the shared results…" />;
  if (content.isError) {
    const gone = isApiError(content.error) && content.error.status === 404;
    return (
      <>
        <h1>{gone ? 'This link is not valid' : 'The shared results could not be loaded'}</h1>
        <ErrorAlert error={content.error} />
      </>
    );
  }
  const shared = content.data;
  return (
    <>
      <h1>{shared.title || DEFAULT_TITLES[shared.kind]}</h1>
      <p className="muted shared-banner">
        A read-only view shared on {formatDateTime(shared.shared_at)}
        {shared.expires_at ? `, until ${formatDateTime(shared.expires_at)}` : ''}.
      </p>
      {shared.kind === 'run' && shared.runs[0] ? renderRun(shared.runs[0]) : null}
      {shared.kind === 'comparison' ? renderComparison(shared.runs.map((run) => run.id)) : null}
      {shared.kind === 'experiment' && shared.experiment ? (
        <SharedExperiment
          experiment={shared.experiment}
          runs={shared.runs}
          labels={mechanismLabels}
          renderRun={renderRun}
          renderExperimentResults={renderExperimentResults}
        />
      ) : null}
    </>
  );
};
