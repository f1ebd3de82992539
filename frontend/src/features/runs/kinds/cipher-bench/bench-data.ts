import type { CategoryChartData } from '@/components/charts';
import { formatDataSize } from '@/lib/format';
import type { BenchSummaryRow } from '@/types/api';

import {
  dataSizesOf,
  mechanismBarsData,
  rank,
  rowSorter,
  seriesPrefix,
  type LabelFor,
} from '../bench/bench-rows';

/**
 * Pure reshaping of a cipher-benchmark run's `bench_summary` rows for its table and charts:
 * what differs from a throughput run (../bench/bench-rows.ts holds what they share).
 */

export { dataSizesOf };

// Each mechanism has one operation and its inverse: encrypt/decrypt for ciphers and AEADs,
// sign/verify for signatures and MACs.
const OPERATION_ORDER = ['encrypt', 'decrypt', 'sign', 'verify'];
const INVERSE_OPERATIONS = new Set(['decrypt', 'verify']);

const byOperationOrder = (a: string, b: string) => rank(OPERATION_ORDER, a) - rank(OPERATION_ORDER, b);

/**
 * Rows by device name, then mechanism in `mechanismOrder` (the catalogue's; unknown ones
 * last, by name), data size, and operation (encrypt before decrypt, sign before verify).
 */
export const sortBenchRows = rowSorter(
  (a, b) =>
    a.data_bytes - b.data_bytes || byOperationOrder(a.operation, b.operation) || a.operation.localeCompare(b.operation),
);

/**
 * Mean time of each operation at one data size: mechanisms (sorted rows' order) as
 * categories, ± standard deviation as errors. An operation and its inverse share a series
 * ("encrypt / sign", "decrypt / verify"), so a cipher and a signature side by side do not
 * leave empty bar slots.
 */
export const meanTimeChartData = (
  sortedRows: readonly BenchSummaryRow[],
  dataBytes: number | undefined,
  labelFor: LabelFor,
): CategoryChartData =>
  mechanismBarsData(sortedRows, dataBytes, labelFor, {
    seriesOf: (row) =>
      OPERATION_ORDER.includes(row.operation)
        ? INVERSE_OPERATIONS.has(row.operation)
          ? 'inverse'
          : 'forward'
        : row.operation,
    nameOf: (operations) => [...operations].sort(byOperationOrder).join(' / '),
    value: (row) => row.mean_us,
    error: (row) => row.std_us,
  });

/**
 * Throughput of every mechanism and operation (one line each) across data sizes, smallest
 * first; a mechanism's lines form one group.
 */
export const throughputChartData = (
  sortedRows: readonly BenchSummaryRow[],
  labelFor: LabelFor,
): CategoryChartData => {
  const sizes = dataSizesOf(sortedRows);
  const prefixOf = seriesPrefix(sortedRows);
  const series = new Map<string, { name: string; values: (number | null)[]; group: string; colourKey?: string }>();
  for (const row of sortedRows) {
    const key = `${row.device_id}|${row.mechanism}|${row.operation}`;
    let line = series.get(key);
    if (!line) {
      line = {
        name: `${prefixOf(row)}${labelFor(row.mechanism)} ${row.operation}`,
        values: sizes.map(() => null),
        // A mechanism's operations share a colour (and differ by dash).
        group: `${row.device_id}|${row.mechanism}`,
        // One colour per mechanism across the app; with several devices, colours tell devices apart.
        ...(prefixOf(row) === '' ? { colourKey: row.mechanism } : {}),
      };
      series.set(key, line);
    }
    line.values[sizes.indexOf(row.data_bytes)] = row.throughput_mb_s;
  }
  return { categories: sizes.map(formatDataSize), series: [...series.values()] };
};
