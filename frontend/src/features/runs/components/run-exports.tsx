import { CopyButton } from '@/components/ui/copy-button';
import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import type { ExperimentKind } from '@/types/api';

import { useRunMethods } from '../api/get-run-methods';
import { RUN_EXPORT_FILES, runExportHref } from '../api/run-exports';

type Descriptions = Record<(typeof RUN_EXPORT_FILES)[number], string>;

const MESSAGING_EXPORTS: Descriptions = {
  'records.csv': 'one row per message',
  'records.parquet': 'one row per message, typed and a tenth of the size',
  'summary.csv': 'one row per device and one for all devices',
  'summary.parquet': 'the summary, typed, with the devices’ facts in its metadata',
};

const BENCH_EXPORTS: Descriptions = {
  'records.csv': 'one row per sample: wall and CPU time, peak memory (and packets per window)',
  'records.parquet': 'the samples, typed',
  'summary.csv': 'one row per device, mechanism, data size and operation: mean, sample variance and std',
  'summary.parquet': 'the summary, typed, with the devices’ facts in its metadata',
};

const EXPORT_DESCRIPTIONS: Record<ExperimentKind, Descriptions> = {
  messaging: MESSAGING_EXPORTS,
  cipher_bench: BENCH_EXPORTS,
  throughput: { ...BENCH_EXPORTS, 'records.csv': 'one row per window: packets, wall and CPU time' },
};

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
            <span className="muted">({EXPORT_DESCRIPTIONS[kind][file]})</span>
          </li>
        ))}
      </ul>
    </section>
    <MethodsParagraph runId={runId} />
  </>
);
