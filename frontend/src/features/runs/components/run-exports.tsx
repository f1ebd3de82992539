import { useState } from 'react';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';

import { useRunMethods } from '../api/get-run-methods';
import { RUN_EXPORT_FILES, runExportHref } from '../api/run-exports';

const EXPORT_DESCRIPTIONS: Record<(typeof RUN_EXPORT_FILES)[number], string> = {
  'records.csv': 'one row per message',
  'records.parquet': 'one row per message, typed and a tenth of the size',
  'summary.csv': 'one row per device and one for all devices',
  'summary.parquet': 'the summary, typed, with the devices’ facts in its metadata',
};

type CopyState = 'idle' | 'copied' | 'failed';

/** The generated methods paragraph (GET /methods/), with a button that copies it. */
const MethodsParagraph = ({ runId }: { runId: string }) => {
  const methods = useRunMethods({ runId });
  const [copy, setCopy] = useState<CopyState>('idle');

  const onCopy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopy('copied');
    } catch {
      // No permission, or an insecure (http) origin: the text can still be selected by hand.
      setCopy('failed');
    }
  };

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
            <button type="button" className="button" onClick={() => void onCopy(methods.data.text)}>
              Copy
            </button>
            {/* Not role="status": the page's run status owns that role. */}
            <span aria-live="polite">
              {copy === 'copied' ? 'Copied.' : copy === 'failed' ? 'Could not copy: select the text instead.' : ''}
            </span>
          </div>
        </>
      ) : null}
    </section>
  );
};

/** Downloads of a completed messaging run's records and summary, and its methods paragraph. */
export const RunExports = ({ runId }: { runId: string }) => (
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
            <span className="muted">({EXPORT_DESCRIPTIONS[file]})</span>
          </li>
        ))}
      </ul>
    </section>
    <MethodsParagraph runId={runId} />
  </>
);
