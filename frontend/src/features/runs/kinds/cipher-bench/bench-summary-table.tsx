import { formatDataSize, formatDecimal } from '@/lib/format';
import type { BenchSummaryRow } from '@/types/api';

import type { LabelFor } from './bench-data';

type BenchSummaryTableProps = { rows: readonly BenchSummaryRow[]; labelFor: LabelFor };

const DECIMAL_COLUMNS = [
  ['mean_us', 'Mean (µs)'],
  ['net_mean_us', 'Net of Null (µs)'],
  ['std_us', 'Std dev (µs)'],
  ['var_us2', 'Variance (µs²)'],
  ['cpu_mean_us', 'CPU (µs)'],
  ['throughput_mb_s', 'Throughput (MB/s)'],
] as const satisfies readonly (readonly [keyof BenchSummaryRow, string])[];

/** One row per device, mechanism, data size and operation, in the order given. */
export const BenchSummaryTable = ({ rows, labelFor }: BenchSummaryTableProps) => (
  <div className="table-wrap">
    <table className="table">
      <caption className="panel-title">Cipher benchmark</caption>
      <thead>
        <tr>
          <th scope="col">Device</th>
          <th scope="col">Mechanism</th>
          <th scope="col">Operation</th>
          <th scope="col">Data size</th>
          <th scope="col">n</th>
          {DECIMAL_COLUMNS.map(([key, label]) => (
            <th scope="col" key={key}>
              {label}
            </th>
          ))}
          <th scope="col">Peak RSS (KB)</th>
          <th scope="col" title="Calls timed together per repetition; times are means per call">
            Calls/rep
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={7 + DECIMAL_COLUMNS.length} className="muted">
              No results were stored for this run.
            </td>
          </tr>
        ) : null}
        {rows.map((row) => (
          <tr key={`${row.device_id}|${row.mechanism}|${row.operation}|${row.data_bytes}`}>
            <th scope="row">{row.device_name}</th>
            <td>{labelFor(row.mechanism)}</td>
            <td>{row.operation}</td>
            <td className="num">{formatDataSize(row.data_bytes)}</td>
            <td className="num">{row.n}</td>
            {DECIMAL_COLUMNS.map(([key]) => (
              <td className="num" key={key}>
                {formatDecimal(row[key])}
              </td>
            ))}
            <td className="num">{row.peak_rss_kb}</td>
            <td className="num">{row.calls_per_repetition ?? 1}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);
