import { formatMs } from '@/lib/format';
import type { RunSummaryRow } from '@/types/api';

type RunSummaryTableProps = { rows: RunSummaryRow[] };

const MS_COLUMNS = [
  ['mean_ms', 'Mean (ms)'],
  ['median_ms', 'Median (ms)'],
  ['p95_ms', 'p95 (ms)'],
  ['p99_ms', 'p99 (ms)'],
  ['min_ms', 'Min (ms)'],
  ['max_ms', 'Max (ms)'],
  ['std_ms', 'Std dev (ms)'],
] as const satisfies readonly (readonly [keyof RunSummaryRow, string])[];

export const RunSummaryTable = ({ rows }: RunSummaryTableProps) => (
  <div className="table-wrap">
    <table className="table">
      <caption className="panel-title">Summary</caption>
      <thead>
        <tr>
          <th scope="col">Device</th>
          <th scope="col">n</th>
          <th scope="col">Lost</th>
          {MS_COLUMNS.map(([key, label]) => (
            <th scope="col" key={key}>
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.device_id ?? 'all'} className={row.device_id === null ? 'row-total' : undefined}>
            <th scope="row">{row.device_name}</th>
            <td className="num">{row.n}</td>
            <td className="num">{row.lost}</td>
            {MS_COLUMNS.map(([key]) => (
              <td className="num" key={key}>
                {formatMs(row[key])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);
