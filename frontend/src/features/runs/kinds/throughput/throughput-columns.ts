import { formatDataSize, formatDecimal, formatFactor } from '@/lib/format';

import type { BenchColumn } from '../bench/bench-table';

import { modeLabel } from './throughput-data';

/** A throughput run's table: one row per device, mechanism, mode and payload size. */
export const THROUGHPUT_COLUMNS: readonly BenchColumn[] = [
  { label: 'Mechanism', cell: (row, labelFor) => labelFor(row.mechanism) },
  { label: 'Mode', cell: (row) => modeLabel(row.operation) },
  { label: 'Payload', numeric: true, cell: (row) => formatDataSize(row.data_bytes) },
  { label: 'Windows (n)', numeric: true, cell: (row) => row.n },
  // Whole packets a second: decimals would be noise next to the std dev.
  { label: 'Packets/s (mean)', numeric: true, cell: (row) => formatDecimal(row.packets_per_s_mean, 1) },
  { label: 'Std dev', numeric: true, cell: (row) => formatDecimal(row.packets_per_s_std, 1) },
  { label: 'Relative cost', numeric: true, cell: (row) => formatFactor(row.relative_cost) },
];
