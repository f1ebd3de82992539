import { formatDataSize, formatDecimal, formatFactor } from '@/lib/format';
import type { BenchSummaryRow } from '@/types/api';

import type { LabelFor } from '../cipher-bench/bench-data';

import { modeLabel } from './throughput-data';

type ThroughputTableProps = { rows: readonly BenchSummaryRow[]; labelFor: LabelFor };

const COLUMNS = [
  'Device',
  'Mechanism',
  'Mode',
  'Payload',
  'Windows (n)',
  'Packets/s (mean)',
  'Std dev',
  'Relative cost',
] as const;

/** One row per device, mechanism, mode and payload size, in the order given. */
export const ThroughputTable = ({ rows, labelFor }: ThroughputTableProps) => (
  <div className="table-wrap">
    <table className="table">
      <caption className="panel-title">Throughput</caption>
      <thead>
        <tr>
          {COLUMNS.map((label) => (
            <th scope="col" key={label}>
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={COLUMNS.length} className="muted">
              No results were stored for this run.
            </td>
          </tr>
        ) : null}
        {rows.map((row) => (
          <tr key={`${row.device_id}|${row.mechanism}|${row.operation}|${row.data_bytes}`}>
            <th scope="row">{row.device_name}</th>
            <td>{labelFor(row.mechanism)}</td>
            <td>{modeLabel(row.operation)}</td>
            <td className="num">{formatDataSize(row.data_bytes)}</td>
            <td className="num">{row.n}</td>
            {/* Whole packets a second: decimals would be noise next to the std dev. */}
            <td className="num">{formatDecimal(row.packets_per_s_mean, 1)}</td>
            <td className="num">{formatDecimal(row.packets_per_s_std, 1)}</td>
            <td className="num">{formatFactor(row.relative_cost)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  </div>
);
