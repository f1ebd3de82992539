import type { CategoryChartData, CategorySeries } from '@/components/charts';
import type { BenchOperation, BenchSummaryRow } from '@/types/api';

/**
 * Pure reshaping of `bench_summary` rows that every bench-like kind (a cipher benchmark, a
 * throughput run: one row per device, mechanism, operation and data size) shares; each kind
 * folder adds only its own order of operations and its own charts. Mechanisms are shown by
 * label: `labelFor` maps a name to it.
 */

export type LabelFor = (mechanism: string) => string;

/** Where `value` comes in `order`; values it does not list come last. */
export const rank = (order: readonly string[], value: string) => {
  const index = order.indexOf(value);
  return index === -1 ? order.length : index;
};

type RowOrder = (a: BenchSummaryRow, b: BenchSummaryRow) => number;

/**
 * A kind's sort of its rows: by device name, then mechanism in `mechanismOrder` (the
 * catalogue's; unknown ones last, by name), then `within` (the kind's order of a
 * mechanism's rows).
 */
export const rowSorter =
  (within: RowOrder) =>
  (rows: readonly BenchSummaryRow[], mechanismOrder: readonly string[]): BenchSummaryRow[] =>
    [...rows].sort(
      (a, b) =>
        a.device_name.localeCompare(b.device_name) ||
        a.device_id.localeCompare(b.device_id) ||
        rank(mechanismOrder, a.mechanism) - rank(mechanismOrder, b.mechanism) ||
        a.mechanism.localeCompare(b.mechanism) ||
        within(a, b),
    );

export const distinct = <T>(values: readonly T[]): T[] => [...new Set(values)];

/** The distinct data sizes, smallest first. */
export const dataSizesOf = (rows: readonly BenchSummaryRow[]): number[] =>
  distinct(rows.map((row) => row.data_bytes)).sort((a, b) => a - b);

// With one device the device name is noise; with several it tells the series apart.
export const seriesPrefix = (rows: readonly BenchSummaryRow[]) => {
  const several = distinct(rows.map((row) => row.device_id)).length > 1;
  return (row: BenchSummaryRow) => (several ? `${row.device_name} · ` : '');
};

/** How one bar chart of mechanisms at one data size groups and names its series. */
export type MechanismBarsSpec = {
  /** The series a row belongs to, within its device (its operation, or a pair of them). */
  seriesOf: (row: BenchSummaryRow) => string;
  /** A series' name (without the device) from the operations of its rows. */
  nameOf: (operations: readonly BenchOperation[]) => string;
  /** The order of two series of one device (by `seriesOf`); by default the rows' order. */
  seriesOrder?: (a: string, b: string) => number;
  value: (row: BenchSummaryRow) => number | null;
  /** The error bar of a row's value; without it the series have none. */
  error?: (row: BenchSummaryRow) => number | null;
};

type SeriesBuilder = {
  deviceIndex: number;
  key: string;
  operations: BenchOperation[];
  values: (number | null)[];
  errors: (number | null)[];
};

/**
 * One value per mechanism (categories, in the sorted rows' order) at one data size, one
 * series per device and `spec.seriesOf`, devices in the rows' order, named after the
 * device when several took part.
 */
export const mechanismBarsData = (
  sortedRows: readonly BenchSummaryRow[],
  dataBytes: number | undefined,
  labelFor: LabelFor,
  spec: MechanismBarsSpec,
): CategoryChartData => {
  const rows = sortedRows.filter((row) => row.data_bytes === dataBytes);
  const mechanisms = distinct(rows.map((row) => row.mechanism));
  const devices = distinct(sortedRows.map((row) => row.device_id));
  const prefixOf = seriesPrefix(sortedRows);
  const builders = new Map<string, SeriesBuilder & { prefix: string }>();
  for (const row of rows) {
    const key = spec.seriesOf(row);
    const id = `${row.device_id}|${key}`;
    let builder = builders.get(id);
    if (!builder) {
      builder = {
        deviceIndex: devices.indexOf(row.device_id),
        key,
        prefix: prefixOf(row),
        operations: [],
        values: mechanisms.map(() => null),
        errors: mechanisms.map(() => null),
      };
      builders.set(id, builder);
    }
    const index = mechanisms.indexOf(row.mechanism);
    if (!builder.operations.includes(row.operation)) builder.operations.push(row.operation);
    builder.values[index] = spec.value(row);
    builder.errors[index] = spec.error ? spec.error(row) : null;
  }
  const seriesOrder = spec.seriesOrder ?? (() => 0);
  return {
    categories: mechanisms.map(labelFor),
    // A mechanism missing from one series must not reorder them: sort, do not trust arrival.
    series: [...builders.values()]
      .sort((a, b) => a.deviceIndex - b.deviceIndex || seriesOrder(a.key, b.key))
      .map(({ prefix, operations, values, errors }): CategorySeries => {
        const name = prefix + spec.nameOf(operations);
        return spec.error ? { name, values, errors } : { name, values };
      }),
  };
};
