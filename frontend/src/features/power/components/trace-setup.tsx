import { ErrorAlert } from '@/components/ui/error-alert';
import type { PowerTrace } from '@/types/api';

import { DetectionSummary } from './detection-summary';
import { ParseSpecForm } from './parse-spec-form';

const percent = (fraction: number) => Math.round(Math.min(1, Math.max(0, fraction)) * 100);

type TraceSetupProps = { trace: PowerTrace };

/**
 * A trace before it is parsed (uploaded, parsing or failed): what was detected, the file's
 * head, and the mapping form. The form stays mounted through parsing and failure, so the
 * user's edits survive and a failed parse can be fixed and retried.
 */
export const TraceSetup = ({ trace }: TraceSetupProps) => {
  const parsing = trace.status === 'parsing';
  return (
    <>
      {trace.status === 'failed' && trace.error ? (
        <ErrorAlert
          title={trace.spec ? 'Parsing failed.' : 'This file cannot be read as a trace.'}
          message={trace.error.message}
        />
      ) : null}
      {parsing ? (
        <section className="panel" aria-labelledby="parsing-heading">
          <h2 id="parsing-heading" className="panel-title">
            Parsing
          </h2>
          <div
            role="progressbar"
            aria-label="Parsing progress"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent(trace.progress)}
            className="progress"
          >
            <div className="progress-bar" style={{ width: `${percent(trace.progress)}%` }} />
          </div>
          <p className="progress-text">{percent(trace.progress)} % of the file read</p>
        </section>
      ) : null}
      {trace.detection ? (
        <>
          <DetectionSummary detection={trace.detection} />
          <section className="panel" aria-labelledby="mapping-heading">
            <h2 id="mapping-heading" className="panel-title">
              Columns
            </h2>
            <ParseSpecForm traceId={trace.id} detection={trace.detection} spec={trace.spec} parsing={parsing} />
          </section>
        </>
      ) : (
        <p className="muted">
          Nothing in this file could be mapped. Delete it and upload the meter&apos;s export again.
        </p>
      )}
    </>
  );
};
