import type { CategoryChartData, CategorySeries } from '@/components/charts';
import { formatDataSize } from '@/lib/format';
import type { BenchSummaryRow } from '@/types/api';

/**
 * Pure reshaping of a cipher-benchmark run's `bench_summary` rows for its table and charts
 * (a throughput run's are reshaped in ./throughput-data.ts). Mechanisms are shown by label:
 * `labelFor` maps a name to it.
 */

export type LabelFor = (mechanism: string) => string;

// Each mechanism has one operation and its inverse: encrypt/decrypt for ciphers and AEADs,
// sign/verify for signatures and MACs.
const OPERATION_ORDER = ['encrypt', 'decrypt', 'sign', 'verify'];
const INVERSE_OPERATIONS = new Set(['decrypt', 'verify']);

/** Where `value` comes in `order`; values it does not list come last. */
export const rank = (order: readonly string[], value: string) => {
  const index = order.indexOf(value);
  return index === -1 ? order.length : index;
};

const byOperationOrder = (a: string, b: string) => rank(OPERATION_ORDER, a) - rank(OPERATION_ORDER, b);

/**
 * Rows by device name, then mechanism in `mechanismOrder` (the catalogue's; unknown ones
 * last, by name), data size, and operation (encrypt before decrypt, sign before verify).
 */
export const sortBenchRows = (
  rows: readonly BenchSummaryRow[],
  mechanismOrder: readonly string[],
): BenchSummaryRow[] =>
  [...rows].sort(
    (a, b) =>
      a.device_name.localeCompare(b.device_name) ||
      a.device_id.localeCompare(b.device_id) ||
      rank(mechanismOrder, a.mechanism) - rank(mechanismOrder, b.mechanism) ||
      a.mechanism.localeCompare(b.mechanism) ||
      a.data_bytes - b.data_bytes ||
      byOperationOrder(a.operation, b.operation) ||
      a.operation.localeCompare(b.operation),
  );

/** The distinct data sizes, smallest first. */
export const dataSizesOf = (rows: readonly BenchSummaryRow[]): number[] =>
  [...new Set(rows.map((row) => row.data_bytes))].sort((a, b) => a - b);

const distinct = <T>(values: readonly T[]): T[] => [...new Set(values)];

// With one device the device name is noise; with several it tells the series apart.
export const seriesPrefix = (rows: readonly BenchSummaryRow[]) => {
  const several = distinct(rows.map((row) => row.device_id)).length > 1;
  return (row: BenchSummaryRow) => (several ? `${row.device_name} · ` : '');
};

type SeriesBuilder = {
  prefix: string;
  operations: Set<string>;
  values: (number | null)[];
  errors: (number | null)[];
};

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
): CategoryChartData => {
  const rows = sortedRows.filter((row) => row.data_bytes === dataBytes);
  const mechanisms = distinct(rows.map((row) => row.mechanism));
  const prefixOf = seriesPrefix(sortedRows);
  const builders = new Map<string, SeriesBuilder>();
  for (const row of rows) {
    const known = OPERATION_ORDER.includes(row.operation);
    const step = known ? (INVERSE_OPERATIONS.has(row.operation) ? 'inverse' : 'forward') : row.operation;
    const key = `${row.device_id}|${step}`;
    let builder = builders.get(key);
    if (!builder) {
      builder = {
        prefix: prefixOf(row),
        operations: new Set(),
        values: mechanisms.map(() => null),
        errors: mechanisms.map(() => null),
      };
      builders.set(key, builder);
    }
    const index = mechanisms.indexOf(row.mechanism);
    builder.operations.add(row.operation);
    builder.values[index] = row.mean_us;
    builder.errors[index] = row.std_us;
  }
  return {
    categories: mechanisms.map(labelFor),
    series: [...builders.values()].map(
      ({ prefix, operations, values, errors }): CategorySeries => ({
        name: prefix + [...operations].sort(byOperationOrder).join(' / '),
        values,
        errors,
      }),
    ),
  };
};

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
  const series = new Map<string, { name: string; values: (number | null)[]; group: string }>();
  for (const row of sortedRows) {
    const key = `${row.device_id}|${row.mechanism}|${row.operation}`;
    let line = series.get(key);
    if (!line) {
      line = {
        name: `${prefixOf(row)}${labelFor(row.mechanism)} ${row.operation}`,
        values: sizes.map(() => null),
        // A mechanism's operations share a colour (and differ by dash).
        group: `${row.device_id}|${row.mechanism}`,
      };
      series.set(key, line);
    }
    line.values[sizes.indexOf(row.data_bytes)] = row.throughput_mb_s;
  }
  return { categories: sizes.map(formatDataSize), series: [...series.values()] };
};
