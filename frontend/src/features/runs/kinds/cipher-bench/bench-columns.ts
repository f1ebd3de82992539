import { formatDataSize, formatDecimal } from '@/lib/format';
import type { BenchSummaryRow } from '@/types/api';

import type { BenchColumn } from '../bench/bench-table';

type DecimalField = keyof Pick<
  BenchSummaryRow,
  'mean_us' | 'net_mean_us' | 'std_us' | 'var_us2' | 'cpu_mean_us' | 'throughput_mb_s'
>;

const decimal = (key: DecimalField, label: string): BenchColumn => ({
  label,
  numeric: true,
  cell: (row) => formatDecimal(row[key]),
});

/** A cipher benchmark's table: one row per device, mechanism, data size and operation. */
export const BENCH_COLUMNS: readonly BenchColumn[] = [
  { label: 'Mechanism', cell: (row, labelFor) => labelFor(row.mechanism) },
  { label: 'Operation', cell: (row) => row.operation },
  { label: 'Data size', numeric: true, cell: (row) => formatDataSize(row.data_bytes) },
  { label: 'n', numeric: true, cell: (row) => row.n },
  decimal('mean_us', 'Mean (µs)'),
  decimal('net_mean_us', 'Net of Null (µs)'),
  decimal('std_us', 'Std dev (µs)'),
  decimal('var_us2', 'Variance (µs²)'),
  decimal('cpu_mean_us', 'CPU (µs)'),
  decimal('throughput_mb_s', 'Throughput (MB/s)'),
  { label: 'Peak RSS (KB)', numeric: true, cell: (row) => row.peak_rss_kb },
  {
    label: 'Calls/rep',
    title: 'Calls timed together per repetition; times are means per call',
    numeric: true,
    cell: (row) => row.calls_per_repetition ?? 1,
  },
];
