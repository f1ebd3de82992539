import { formatDecimal } from '@/lib/format';
import type { RunSummaryRow } from '@/types/api';

type RunSummaryTableProps = { rows: RunSummaryRow[] };

/**
 * The mean time spent securing a payload before sending and unsecuring it after receiving,
 * per device (runs with payload security). From the run's stored summary: GET /statistics/
 * does not carry these times (yet); the round-trip statistics are in RunStatisticsTable.
 */
export const RunSummaryTable = ({ rows }: RunSummaryTableProps) => (
  <div className="table-wrap">
    <table className="table">
      <caption className="panel-title">Securing times</caption>
      <thead>
        <tr>
          <th scope="col">Device</th>
          <th scope="col">n</th>
          <th scope="col">Secure (µs)</th>
          <th scope="col">Unsecure (µs)</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.device_id ?? 'all'} className={row.device_id === null ? 'row-total' : undefined}>
            <th scope="row">{row.device_name}</th>
            <td className="num">{row.n}</td>
            <td className="num">{formatDecimal(row.secure_mean_us, 3)}</td>
            <td className="num">{formatDecimal(row.unsecure_mean_us, 3)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);
