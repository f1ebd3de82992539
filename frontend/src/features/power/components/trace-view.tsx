import { Link } from 'react-router';

import { StatusBadge } from '@/components/ui/status-badge';
import { env } from '@/config/env';
import { paths } from '@/config/paths';
import { formatBytes, formatDateTime, formatDecimal } from '@/lib/format';
import type { PowerTrace } from '@/types/api';

import { DeleteTraceButton } from './delete-trace-button';
import { formatCount, formatSeconds } from './energy';
import { KIND_LABELS } from './labels';
import { PowerWarnings } from './power-warnings';
import { TraceAnalysis } from './trace-analysis';
import { TraceSetup } from './trace-setup';
import { traceLabel } from './traces-table';

/** What a parsed trace stores besides power (always stored, measured or derived), in words. */
const measured = (trace: PowerTrace): string => {
  const also = [trace.has_voltage ? 'voltage' : null, trace.has_current ? 'current' : null].filter(Boolean);
  return ['power', ...also].join(', ');
};

/** GET /api/power-traces/{id}/raw/: the file as uploaded (a plain link: the browser downloads it). */
const rawFileUrl = (traceId: string) => `${env.API_URL}/api/power-traces/${encodeURIComponent(traceId)}/raw/`;

type TraceViewProps = { trace: PowerTrace; onDeleted: () => void };

export const TraceView = ({ trace, onDeleted }: TraceViewProps) => (
  <>
    <h1>Power trace: {traceLabel(trace)}</h1>
    <p className="run-meta">
      <StatusBadge status={trace.status} prefix="Status: " role="status" />
      <span>
        {KIND_LABELS[trace.kind]}
        {trace.kind === 'baseline' && trace.baseline_name ? ` · ${trace.baseline_name}` : ''}
      </span>
      {trace.device ? <span>Device: {trace.device_name ?? 'unknown'}</span> : null}
      {trace.run ? <Link to={paths.run.getHref(trace.run)}>Open the run</Link> : null}
      <Link to={paths.power.getHref()}>All traces</Link>
    </p>
    <dl className="params">
      <dt>File</dt>
      <dd>
        {trace.original_filename} <span className="muted">({formatBytes(trace.size_bytes)})</span>{' '}
        <a href={rawFileUrl(trace.id)} download={trace.original_filename}>
          Download the raw file
        </a>
      </dd>
      <dt>Uploaded</dt>
      <dd>{formatDateTime(trace.created_at)}</dd>
      {trace.status === 'parsed' ? (
        <>
          <dt>Samples</dt>
          <dd>
            {formatCount(trace.sample_count)} over {formatSeconds(trace.duration_s)}
          </dd>
          <dt>Stored</dt>
          <dd>{measured(trace)}</dd>
          {trace.supply_voltage_v === null ? null : (
            <>
              <dt>Supply voltage</dt>
              <dd>{formatDecimal(trace.supply_voltage_v, 2)} V</dd>
            </>
          )}
          <dt>Starts</dt>
          <dd>{trace.absolute_start ? formatDateTime(trace.absolute_start) : 'No wall-clock time in the file'}</dd>
        </>
      ) : null}
    </dl>
    {trace.notes.length > 0 ? (
      <ul className="notes" aria-label="Parsing notes">
        {trace.notes.map((note, i) => (
          <li key={`${i}:${note}`}>{note}</li>
        ))}
      </ul>
    ) : null}

    <PowerWarnings warnings={trace.warnings} label="Warnings about this trace" />

    {trace.status === 'parsed' ? <TraceAnalysis trace={trace} /> : <TraceSetup trace={trace} />}

    <DeleteTraceButton traceId={trace.id} onDeleted={onDeleted} />
  </>
);
