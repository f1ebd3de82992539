import type { CategoryChartData, CategorySeries } from '@/components/charts';
import type { BenchOperation, BenchSummaryRow } from '@/types/api';

import { rank, seriesPrefix, type LabelFor } from '../cipher-bench/bench-data';

/**
 * Pure reshaping of a throughput run's `bench_summary` rows (one per device, mechanism,
 * mode and payload size) for its table and charts. A throughput run measures each mechanism
 * in two modes, stored as the row's operation.
 */

/** The modes in the order they are measured and shown: securing alone, then securing and sending. */
const MODE_ORDER = ['secure', 'send'] as const satisfies readonly BenchOperation[];

export const MODE_LABELS: Record<(typeof MODE_ORDER)[number], string> = {
  secure: 'Loopback (secure only)',
  send: 'Network (secure + send)',
};

const isMode = (operation: string): operation is keyof typeof MODE_LABELS => operation in MODE_LABELS;

/** A mode's label; the operation's name for anything else (a newer agent's mode). */
export const modeLabel = (operation: BenchOperation): string =>
  isMode(operation) ? MODE_LABELS[operation] : operation;

const modeRank = (operation: string) => rank(MODE_ORDER, operation);

/**
 * Rows by device name, then mechanism in `mechanismOrder` (the catalogue's, where "none"
 * comes first; unknown ones last, by name), mode (loopback before network), payload size:
 * the table's column order, so each mechanism's rows sit together.
 */
export const sortThroughputRows = (
  rows: readonly BenchSummaryRow[],
  mechanismOrder: readonly string[],
): BenchSummaryRow[] =>
  [...rows].sort(
    (a, b) =>
      a.device_name.localeCompare(b.device_name) ||
      a.device_id.localeCompare(b.device_id) ||
      rank(mechanismOrder, a.mechanism) - rank(mechanismOrder, b.mechanism) ||
      a.mechanism.localeCompare(b.mechanism) ||
      modeRank(a.operation) - modeRank(b.operation) ||
      a.operation.localeCompare(b.operation) ||
      a.data_bytes - b.data_bytes,
  );

/** Whether any row has a relative cost: none has when the run did not measure "none". */
export const hasRelativeCosts = (rows: readonly BenchSummaryRow[]): boolean =>
  rows.some((row) => row.relative_cost !== null);

type ModeSeries = {
  deviceIndex: number;
  operation: BenchOperation;
  name: string;
  values: (number | null)[];
  errors: (number | null)[];
};

/**
 * One value per mechanism (categories, in the sorted rows' order) at one payload size, one
 * series per mode (per device and mode when several devices took part), loopback first.
 */
const byModeChartData = (
  sortedRows: readonly BenchSummaryRow[],
  payloadBytes: number | undefined,
  labelFor: LabelFor,
  value: (row: BenchSummaryRow) => number | null,
  error?: (row: BenchSummaryRow) => number | null,
): CategoryChartData => {
  const rows = sortedRows.filter((row) => row.data_bytes === payloadBytes);
  const mechanisms = [...new Set(rows.map((row) => row.mechanism))];
  const devices = [...new Set(sortedRows.map((row) => row.device_id))];
  const prefixOf = seriesPrefix(sortedRows);
  const series = new Map<string, ModeSeries>();
  for (const row of rows) {
    const key = `${row.device_id}|${row.operation}`;
    let builder = series.get(key);
    if (!builder) {
      builder = {
        deviceIndex: devices.indexOf(row.device_id),
        operation: row.operation,
        name: prefixOf(row) + modeLabel(row.operation),
        values: mechanisms.map(() => null),
        errors: mechanisms.map(() => null),
      };
      series.set(key, builder);
    }
    const index = mechanisms.indexOf(row.mechanism);
    builder.values[index] = value(row);
    builder.errors[index] = error ? error(row) : null;
  }
  return {
    categories: mechanisms.map(labelFor),
    // A mechanism missing from one mode must not reorder the modes: sort, do not trust arrival.
    series: [...series.values()]
      .sort((a, b) => a.deviceIndex - b.deviceIndex || modeRank(a.operation) - modeRank(b.operation))
      .map(
        ({ name, values, errors }): CategorySeries => (error ? { name, values, errors } : { name, values }),
      ),
  };
};

/** Mean packets per second of each mechanism and mode at one payload size, ± standard deviation. */
export const packetRateChartData = (
  sortedRows: readonly BenchSummaryRow[],
  payloadBytes: number | undefined,
  labelFor: LabelFor,
): CategoryChartData =>
  byModeChartData(
    sortedRows,
    payloadBytes,
    labelFor,
    (row) => row.packets_per_s_mean,
    (row) => row.packets_per_s_std,
  );

/** Relative cost (packets/s without security ÷ with the mechanism) of each mechanism and mode. */
export const relativeCostChartData = (
  sortedRows: readonly BenchSummaryRow[],
  payloadBytes: number | undefined,
  labelFor: LabelFor,
): CategoryChartData => byModeChartData(sortedRows, payloadBytes, labelFor, (row) => row.relative_cost);
