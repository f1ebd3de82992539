import type { BinnedSeries, DensitySeries } from '@/components/charts';
import { colourOf } from '@/components/charts/colours';
import type { ComparedRun, RoundTripStatistics, RunComparison, RunDistribution } from '@/types/api';

import type { DistributionQuery } from '../api/get-run-distribution';

import { pooledDensity, pooledHistogram } from './distribution-data';

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

/**
 * What a compared run contributes per mechanism: an interleaved run one part per mechanism of
 * its rotation (its `statistics.mechanisms`, never its mixed messages), any other run one
 * part, named by its own mechanism (`treatment.security`) when it has one, so that a plain
 * run sits next to the interleaved runs' parts of that mechanism.
 */
export type ComparedPart = {
  run: ComparedRun;
  /** Null for a run that names no mechanism. */
  mechanism: string | null;
  interleaved: boolean;
  /** The run's label, after which an interleaved run's mechanism. */
  name: string;
  all: RoundTripStatistics;
  devices: readonly RoundTripStatistics[];
  /** The SRUP paper's combined mean (every device weighs the same), over the part's messages. */
  combinedMeanMs: number | null;
};

export const isInterleaved = (run: ComparedRun): boolean => run.statistics.mechanisms.length > 0;

export const comparedParts = (run: ComparedRun, label: string = comparedRunLabel(run)): ComparedPart[] => {
  if (!isInterleaved(run)) {
    const security = run.treatment.security;
    return [
      {
        run,
        mechanism: typeof security === 'string' ? security : null,
        interleaved: false,
        name: label,
        all: run.statistics.all_devices,
        devices: run.statistics.devices,
        combinedMeanMs: run.statistics.mean_of_device_means_ms,
      },
    ];
  }
  return run.statistics.mechanisms.map((part) => ({
    run,
    mechanism: part.mechanism,
    interleaved: true,
    name: `${label} · ${part.mechanism}`,
    all: part.all_devices,
    devices: part.devices,
    combinedMeanMs: part.mean_of_device_means_ms,
  }));
};

/** A part's key among the compared parts. */
export const partKey = (part: ComparedPart): string => `${part.run.run_id}|${part.mechanism ?? ''}`;

/**
 * Every run's parts; with an interleaved run among them, those of one mechanism together
 * (mechanisms in first-seen order), else in the runs' order.
 */
export const partsByMechanism = (runs: readonly ComparedRun[]): ComparedPart[] => {
  const parts = runs.flatMap((run) => comparedParts(run));
  if (!parts.some((part) => part.interleaved)) return parts;
  const order = [...new Set(parts.map((part) => part.mechanism))];
  return order.flatMap((mechanism) => parts.filter((part) => part.mechanism === mechanism));
};

/** A run's entries of the distribution plot data for one mechanism (an interleaved run's). */
const ofMechanism = (distribution: RunDistribution, mechanism: string): RunDistribution => ({
  ...distribution,
  devices: distribution.devices.filter((device) => device.mechanism === mechanism),
});

const mechanismsOf = (distribution: RunDistribution): string[] => [
  ...new Set(distribution.devices.flatMap((device) => (device.mechanism ? [device.mechanism] : []))),
];

/**
 * A run's devices pooled by `pool` into one series; an interleaved run's into one per
 * mechanism, in the mechanism's app-wide colour.
 */
const pooledPerMechanism = <S extends { colour?: string }>(
  distribution: RunDistribution,
  name: string,
  pool: (distribution: RunDistribution, name: string) => S,
): S[] => {
  const mechanisms = mechanismsOf(distribution);
  if (mechanisms.length === 0) return [pool(distribution, name)];
  return mechanisms.map((mechanism) => ({
    ...pool(ofMechanism(distribution, mechanism), `${name} · ${mechanism}`),
    colour: colourOf(mechanism),
  }));
};

/** Histograms of the compare page's distribution overlay: a run's, or its mechanisms'. */
export const comparedHistograms = (distribution: RunDistribution, name: string): BinnedSeries[] =>
  pooledPerMechanism(distribution, name, pooledHistogram);

/** As comparedHistograms, the densities. */
export const comparedDensities = (distribution: RunDistribution, name: string): DensitySeries[] =>
  pooledPerMechanism(distribution, name, pooledDensity);
