import type { ComparedRun, RunComparison } from '@/types/api';

import type { DistributionQuery } from '../api/get-run-distribution';

/**
 * A run's name in the comparison: the server's label, the parameters in which it differs from
 * the other runs of its experiment (after the experiment's name when the runs span several).
 */
export const comparedRunLabel = (run: Pick<ComparedRun, 'label'>): string => run.label;

/**
 * One value range (ms) over every compared run, so their histograms share their bins' width
 * and their densities one axis: from the smallest to the largest round trip of any run.
 * Null ends (no run delivered anything) leave the server's default range.
 */
export const sharedDistributionQuery = (comparison: RunComparison, bins: number): DistributionQuery => {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const run of comparison.runs) {
    const { min_ms: low, max_ms: high } = run.statistics.all_devices;
    if (low !== null && low < min) min = low;
    if (high !== null && high > max) max = high;
  }
  // The server needs min_ms < max_ms: all values equal leaves the range to it.
  return min < max ? { bins, minMs: min, maxMs: max } : { bins, minMs: null, maxMs: null };
};

/** The selection with `runId` added (at the end) or removed, keeping the order of the rest. */
export const toggleRun = (selection: readonly string[], runId: string): string[] =>
  selection.includes(runId) ? selection.filter((id) => id !== runId) : [...selection, runId];
