import { CopyButton } from '@/components/ui/copy-button';
import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import type { ExperimentKind } from '@/types/api';

import { useRunMethods } from '../api/get-run-methods';
import { RUN_EXPORT_FILES, runExportHref } from '../api/run-exports';
import { RUN_KIND_RESULTS } from '../kinds';

/** The generated methods paragraph (GET /methods/), with a button that copies it. */
export const MethodsParagraph = ({ runId }: { runId: string }) => {
  const methods = useRunMethods({ runId });

  return (
    <section className="panel" aria-labelledby="methods-heading">
      <h2 id="methods-heading" className="panel-title">
        Methods paragraph
      </h2>
      {methods.isPending ? <Loading label="Writing the methods paragraph…" /> : null}
      {methods.isError ? <ErrorAlert error={methods.error} /> : null}
      {methods.data ? (
        <>
          <blockquote className="methods-text" aria-label="Methods paragraph text">
            {methods.data.text}
          </blockquote>
          <p className="muted">Check it before you paste it: it states what was stored, not what was intended.</p>
          <div className="actions">
            <CopyButton text={methods.data.text} />
          </div>
        </>
      ) : null}
    </section>
  );
};

type RunExportsProps = { runId: string; kind: ExperimentKind };

/** Downloads of a completed run's records (or samples) and summary, and its methods paragraph. */
export const RunExports = ({ runId, kind }: RunExportsProps) => (
  <>
    <section className="panel" aria-labelledby="exports-heading">
      <h2 id="exports-heading" className="panel-title">
        Exports
      </h2>
      <ul>
        {RUN_EXPORT_FILES.map((file) => (
          <li key={file}>
            <a href={runExportHref(runId, file)} download>
              {file}
            </a>{' '}
            <span className="muted">({RUN_KIND_RESULTS[kind].exports[file]})</span>
          </li>
        ))}
      </ul>
    </section>
    <MethodsParagraph runId={runId} />
  </>
);
