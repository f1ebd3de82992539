
import type { ReactNode } from 'react';

import { ScrollTable } from '@/components/ui/scroll-table';
import type { BenchSummaryRow } from '@/types/api';

import type { LabelFor } from './bench-rows';

/** One column of a bench-like kind's results table, after the device. */
export type BenchColumn = {
  label: string;
  /** The header's tooltip. */
  title?: string;
  /** Right-aligned, as numbers are. */
  numeric?: boolean;
  cell: (row: BenchSummaryRow, labelFor: LabelFor) => ReactNode;
};

type BenchTableProps = {
  caption: string;
  columns: readonly BenchColumn[];
  rows: readonly BenchSummaryRow[];
  labelFor: LabelFor;
};

/** One row per device, mechanism, operation and data size, in the order given, the device first. */
export const BenchTable = ({ caption, columns, rows, labelFor }: BenchTableProps) => (
  <ScrollTable label={`${caption}`}>
    <table className="table">
      <caption className="panel-title">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Device</th>
          {columns.map(({ label, title }) => (
            <th scope="col" key={label} title={title}>
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td colSpan={1 + columns.length} className="muted">
              No results were stored for this run.
            </td>
          </tr>
        ) : null}
        {rows.map((row) => (
          <tr key={`${row.device_id}|${row.mechanism}|${row.operation}|${row.data_bytes}`}>
            <th scope="row">{row.device_name}</th>
            {columns.map(({ label, numeric, cell }) => (
              <td className={numeric ? 'num' : undefined} key={label}>
                {cell(row, labelFor)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  </ScrollTable>
);
