import { formatDecimal } from '@/lib/format';
import type { RunSummaryRow } from '@/types/api';

type RunSummaryTableProps = {
  rows: RunSummaryRow[];
  /** Add the mean time spent securing and unsecuring a payload (runs with payload security). */
  showSecurityTimes?: boolean;
};

type Column = readonly [keyof RunSummaryRow, string];

const MS_COLUMNS = [
  ['mean_ms', 'Mean (ms)'],
  ['median_ms', 'Median (ms)'],
  ['p95_ms', 'p95 (ms)'],
  ['p99_ms', 'p99 (ms)'],
  ['min_ms', 'Min (ms)'],
  ['max_ms', 'Max (ms)'],
  ['std_ms', 'Std dev (ms)'],
] as const satisfies readonly Column[];

// Mean per message: securing happens before sending, unsecuring after receiving.
const SECURITY_COLUMNS = [
  ['secure_mean_us', 'Secure (µs)'],
  ['unsecure_mean_us', 'Unsecure (µs)'],
] as const satisfies readonly Column[];

export const RunSummaryTable = ({ rows, showSecurityTimes = false }: RunSummaryTableProps) => {
  // Every column is a timing shown with 3 decimals.
  const columns = showSecurityTimes ? [...MS_COLUMNS, ...SECURITY_COLUMNS] : MS_COLUMNS;
  return (
    <div className="table-wrap">
      <table className="table">
        <caption className="panel-title">Summary</caption>
        <thead>
          <tr>
            <th scope="col">Device</th>
            <th scope="col">n</th>
            <th scope="col">Lost</th>
            {columns.map(([key, label]) => (
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
              {columns.map(([key]) => (
                <td className="num" key={key}>
                  {formatDecimal(row[key], 3)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};
