import { Link } from 'react-router';

import { ScrollTable } from '@/components/ui/scroll-table';
import { StatusBadge } from '@/components/ui/status-badge';
import { paths } from '@/config/paths';
import { formatDateTime, MISSING } from '@/lib/format';
import type { PowerTrace } from '@/types/api';

import { formatCount, formatSeconds } from './energy';
import { KIND_LABELS } from './labels';

/** What a trace is called in lists and menus: its name, else the uploaded file's. */
export const traceLabel = (trace: Pick<PowerTrace, 'name' | 'original_filename'>): string =>
  trace.name || trace.original_filename;

/** A baseline in a menu of baselines: its baseline name ("pi3 idle"), else its label. */
export const baselineLabel = (trace: Pick<PowerTrace, 'name' | 'original_filename' | 'baseline_name'>): string =>
  trace.baseline_name || traceLabel(trace);

type TracesTableProps = {
  traces: readonly PowerTrace[];
  caption: string;
  /** Leave out the Run column (on a run's own page). */
  hideRun?: boolean;
};

export const TracesTable = ({ traces, caption, hideRun = false }: TracesTableProps) => (
  <ScrollTable label={`${caption}`}>
    <table className="table">
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Kind</th>
          <th scope="col">Device</th>
          {hideRun ? null : <th scope="col">Run</th>}
          <th scope="col">Status</th>
          <th scope="col">Samples</th>
          <th scope="col">Duration</th>
          <th scope="col">Uploaded</th>
        </tr>
      </thead>
      <tbody>
        {traces.map((trace) => (
          <tr key={trace.id}>
            <th scope="row">
              <Link to={paths.powerTrace.getHref(trace.id)}>{traceLabel(trace)}</Link>
            </th>
            <td>
              {KIND_LABELS[trace.kind]}
              {trace.kind === 'baseline' && trace.baseline_name ? (
                <span className="muted"> · {trace.baseline_name}</span>
              ) : null}
            </td>
            <td>{trace.device ? (trace.device_name ?? 'Unknown device') : MISSING}</td>
            {hideRun ? null : (
              <td>{trace.run ? <Link to={paths.run.getHref(trace.run)}>Open run</Link> : MISSING}</td>
            )}
            <td>
              <StatusBadge status={trace.status} />
            </td>
            <td className="num">{trace.status === 'parsed' ? formatCount(trace.sample_count) : MISSING}</td>
            <td className="num">{formatSeconds(trace.duration_s)}</td>
            <td>{formatDateTime(trace.created_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </ScrollTable>
);
