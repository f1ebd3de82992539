import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { isApiError } from '@/lib/api-client';
import type { DesignPlan } from '@/types/api';

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** "12 runs: 6 combinations × 2 repeats, 2 excluded". */
export const planSummary = (plan: DesignPlan): string => {
  const parts = [plural(plan.cells, 'combination')];
  if (plan.repeats > 1) parts.push(`× ${plural(plan.repeats, 'repeat')}`);
  const excluded = plan.excluded > 0 ? `, ${plan.excluded} excluded` : '';
  return `${plural(plan.run_count, 'run')}: ${parts.join(' ')}${excluded}`;
};

type PlanPanelProps = {
  plan: DesignPlan | undefined;
  /** Whether the design is complete enough to be planned. */
  ready: boolean;
  isFetching: boolean;
  error: unknown;
  /** Whether the design gives the order's seed; else the plan's is a fresh one, for this plan only. */
  seedGiven: boolean;
  /** Put the plan's seed in the design, so that starting it runs in the order shown. */
  onUseSeed: (seed: number) => void;
};

/**
 * What the design will do before anything is created (POST /api/experiments/plan/): how
 * many runs, for how long, the server's warnings and the planned runs' labels.
 */
export const PlanPanel = ({ plan, ready, isFetching, error, seedGiven, onUseSeed }: PlanPanelProps) => {
  const fieldMessages = isApiError(error) ? Object.values(error.fieldErrors).flat() : [];
  return (
    <section className="panel" aria-labelledby="plan-heading">
      <h2 id="plan-heading" className="panel-title">
        Plan
      </h2>
      {!ready ? <p className="muted">Complete the form to see how many runs it makes and how long they take.</p> : null}
      {ready && error ? (
        fieldMessages.length > 0 ? (
          <div className="plan-errors">
            <p>This design cannot run as it is:</p>
            <ul>
              {fieldMessages.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          </div>
        ) : (
          <ErrorAlert error={error} title="The plan could not be computed." />
        )
      ) : null}
      {ready && !error && plan ? (
        <>
          <p className="plan-summary" aria-live="polite">
            <strong>{planSummary(plan)}</strong> · about {plan.estimated}
          </p>
          {plan.warnings.length > 0 ? (
            <ul className="plan-warnings" aria-label="Warnings">
              {plan.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          ) : null}
          <p className="plan-order">
            {seedGiven
              ? `Run order: seed ${plan.order_seed}, as listed below; every start runs in this order.`
              : `Run order: a fresh seed at every start. This plan drew seed ${plan.order_seed}.`}{' '}
            {seedGiven ? null : (
              <button type="button" className="button button-small" onClick={() => onUseSeed(plan.order_seed)}>
                Use seed {plan.order_seed}
              </button>
            )}
          </p>
          <details>
            <summary>
              Planned runs
              {plan.runs.length < plan.run_count ? ` (the first ${plan.runs.length} of ${plan.run_count})` : ''}
            </summary>
            <ol className="plan-runs">
              {plan.runs.map((run) => (
                <li key={run.position}>
                  {run.label || 'Single run'}
                  {plan.repeats > 1 ? <span className="muted"> · repeat {run.repeat}</span> : null}
                </li>
              ))}
            </ol>
          </details>
        </>
      ) : null}
      {ready && isFetching && !plan && !error ? <Loading label="Planning…" /> : null}
    </section>
  );
};
