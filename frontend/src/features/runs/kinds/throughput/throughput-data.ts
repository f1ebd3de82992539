import type { CategoryChartData } from '@/components/charts';
import type { BenchOperation, BenchSummaryRow } from '@/types/api';

import { mechanismBarsData, rank, rowSorter, type LabelFor } from '../bench/bench-rows';

/**
 * Pure reshaping of a throughput run's `bench_summary` rows (one per device, mechanism,
 * mode and payload size) for its table and charts: what differs from a cipher benchmark
 * (../bench/bench-rows.ts holds what they share). A throughput run measures each mechanism
 * in two modes, stored as the row's operation.
 */

/** The modes in the order they are measured and shown: securing alone, then securing and sending. */
const MODE_ORDER = ['secure', 'send'] as const satisfies readonly BenchOperation[];

export const MODE_LABELS: Record<(typeof MODE_ORDER)[number], string> = {
  secure: 'Secure only (nothing sent)',
  send: 'Secure + send over UDP',
};

const isMode = (operation: string): operation is keyof typeof MODE_LABELS => operation in MODE_LABELS;

/** A mode's label; the operation's name for anything else (a newer agent's mode). */
export const modeLabel = (operation: BenchOperation): string =>
  isMode(operation) ? MODE_LABELS[operation] : operation;

const modeRank = (operation: string) => rank(MODE_ORDER, operation);

/**
 * Rows by device name, then mechanism in `mechanismOrder` (the catalogue's, where "none"
 * comes first; unknown ones last, by name), mode (secure only before secure + send), payload size:
 * the table's column order, so each mechanism's rows sit together.
 */
export const sortThroughputRows = rowSorter(
  (a, b) => modeRank(a.operation) - modeRank(b.operation) || a.operation.localeCompare(b.operation) || a.data_bytes - b.data_bytes,
);

/** Whether any row has a relative cost: none has when the run did not measure "none". */
export const hasRelativeCosts = (rows: readonly BenchSummaryRow[]): boolean =>
  rows.some((row) => row.relative_cost !== null);

/** One series per mode (per device and mode when several devices took part), secure only first. */
const BY_MODE = {
  seriesOf: (row: BenchSummaryRow) => row.operation,
  // A series is one mode: one operation.
  nameOf: (operations: readonly BenchOperation[]) => operations.map(modeLabel).join(' / '),
  seriesOrder: (a: string, b: string) => modeRank(a) - modeRank(b),
} as const;

/** Mean packets per second of each mechanism and mode at one payload size, ± standard deviation. */
export const packetRateChartData = (
  sortedRows: readonly BenchSummaryRow[],
  payloadBytes: number | undefined,
  labelFor: LabelFor,
): CategoryChartData =>
  mechanismBarsData(sortedRows, payloadBytes, labelFor, {
    ...BY_MODE,
    value: (row) => row.packets_per_s_mean,
    error: (row) => row.packets_per_s_std,
  });

/** Relative cost (packets/s without security ÷ with the mechanism) of each mechanism and mode. */
export const relativeCostChartData = (
  sortedRows: readonly BenchSummaryRow[],
  payloadBytes: number | undefined,
  labelFor: LabelFor,
): CategoryChartData => mechanismBarsData(sortedRows, payloadBytes, labelFor, { ...BY_MODE, value: (row) => row.relative_cost });
