import type { BoxSummary, CategoryChartData } from '@/components/charts';
import { colourOf } from '@/components/charts/colours';
import type { ComparedRun, PairComparison, RunComparison } from '@/types/api';

import { comparedParts } from './compare-data';

/**
 * The SRUP paper's comparison figures from GET /api/compare/ (no records): mean delay by
 * device per run (Figure 7), combined means of baseline and treatment per condition (8),
 * the overhead per condition with its bootstrap interval (9), and the spread of the
 * per-device differences over all pairs (10).
 */

/** A condition's value in words: a network profile (an object with a name) by its name. */
const text = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && 'name' in value && typeof value.name === 'string') {
    return value.name;
  }
  return JSON.stringify(value);
};

/**
 * What tells the pairs apart: each pair's baseline conditions, shown by the keys whose values
 * differ between pairs ("network: TIM.bad.3G"), and the mechanism of a pair with an
 * interleaved side; "Pair n" when every pair has the same ones.
 */
export const pairConditionLabels = (comparison: RunComparison): string[] => {
  const byId = new Map(comparison.runs.map((run) => [run.run_id, run]));
  const conditions = comparison.pairs.map((pair) => byId.get(pair.baseline_run_id)?.conditions ?? {});
  const keys = [...new Set(conditions.flatMap((c) => Object.keys(c)))].sort();
  const varying = keys.filter((key) => new Set(conditions.map((c) => text(c[key]))).size > 1);
  return conditions.map((c, index) => {
    const mechanism = comparison.pairs[index]?.mechanism;
    const named = [...varying.map((key) => `${key}: ${text(c[key])}`), ...(mechanism ? [mechanism] : [])];
    return named.length === 0 ? `Pair ${index + 1}` : named.join(', ');
  });
};

/** "security: none → aes-128-cbc": what the treatment changes, the legend of Figure 8. */
export const treatmentLabel = (pair: PairComparison, side: 'baseline' | 'treatment'): string =>
  pair.differs_in.map((d) => `${d.key}: ${d[side] ?? '—'}`).join(', ') || side;

/**
 * A side's mechanism when the pair differs in it alone, so its bars take that mechanism's
 * one colour (@/components/charts/colours); otherwise colours go by position.
 */
const mechanismKey = (pair: PairComparison | undefined, side: 'baseline' | 'treatment'): { colourKey?: string } => {
  const security = pair?.differs_in.length === 1 ? pair.differs_in.find((d) => d.key === 'security') : undefined;
  const value = security?.[side];
  return value ? { colourKey: value } : {};
};

/** Figure 8: the combined mean of the baseline and of the treatment, per condition. */
export const pairMeansChartData = (comparison: RunComparison): CategoryChartData => {
  const [first] = comparison.pairs;
  return {
    categories: pairConditionLabels(comparison),
    series: [
      {
        name: first ? treatmentLabel(first, 'baseline') : 'Baseline',
        values: comparison.pairs.map((p) => p.baseline_mean_ms),
        ...mechanismKey(first, 'baseline'),
      },
      {
        name: first ? treatmentLabel(first, 'treatment') : 'Treatment',
        values: comparison.pairs.map((p) => p.treatment_mean_ms),
        ...mechanismKey(first, 'treatment'),
      },
    ],
  };
};

/**
 * Figure 9: treatment − baseline per condition, with its 95% bootstrap interval as error
 * bars (distances to the interval's ends: it need not be symmetric).
 */
export const overheadChartData = (comparison: RunComparison): CategoryChartData => ({
  categories: pairConditionLabels(comparison),
  series: [
    {
      name: 'Overhead',
      values: comparison.pairs.map((p) => p.overhead_ms),
      errors: comparison.pairs.map((p) =>
        p.overhead_ms !== null && p.ci_high_ms !== null ? p.ci_high_ms - p.overhead_ms : null,
      ),
      errorsMinus: comparison.pairs.map((p) =>
        p.overhead_ms !== null && p.ci_low_ms !== null ? p.overhead_ms - p.ci_low_ms : null,
      ),
    },
  ],
});

/** A run's parts, each named by the run's label (and an interleaved run's mechanism). */
const partsOf = (run: ComparedRun, labels: ReadonlyMap<string, string>) =>
  comparedParts(run, labels.get(run.run_id) ?? run.run_id);

/**
 * Figure 7: each run's mean round trip per device, an interleaved run's per mechanism (one
 * category each); the devices are the series.
 */
export const deviceMeansChartData = (
  runs: readonly ComparedRun[],
  labels: ReadonlyMap<string, string>,
): CategoryChartData => {
  const parts = runs.flatMap((run) => partsOf(run, labels));
  const devices = [...new Set(parts.flatMap((part) => part.devices.map((d) => d.device_name)))];
  return {
    categories: parts.map((part) => part.name),
    series: devices.map((device) => ({
      name: device,
      values: parts.map((part) => part.devices.find((d) => d.device_name === device)?.mean_ms ?? null),
    })),
  };
};

/** A run's devices: of the pair's mechanism in an interleaved run, else all its messages'. */
const devicesOf = (run: ComparedRun | undefined, mechanism: string | null) =>
  (mechanism ? run?.statistics.mechanisms.find((part) => part.mechanism === mechanism)?.devices : undefined) ??
  run?.statistics.devices ??
  [];

/**
 * Each device's mean over a side's runs (ms): the mean of its per-run means, every run of the
 * side weighing the same (as the pair's own figures over repeats). Devices by name; an
 * interleaved run's of the pair's `mechanism` only.
 */
export const sideDeviceMeans = (
  runs: readonly (ComparedRun | undefined)[],
  mechanism: string | null = null,
): Map<string, number> => {
  const sums = new Map<string, { total: number; runs: number }>();
  for (const run of runs) {
    for (const device of devicesOf(run, mechanism)) {
      if (device.mean_ms === null) continue;
      const sum = sums.get(device.device_name) ?? { total: 0, runs: 0 };
      sums.set(device.device_name, { total: sum.total + device.mean_ms, runs: sum.runs + 1 });
    }
  }
  return new Map([...sums].map(([name, { total, runs: count }]) => [name, total / count]));
};

/**
 * The differences behind Figure 10: for every pair and every device on both sides, the
 * treatment's mean minus the baseline's (ms), each side's mean over every run of that side
 * (its repeats, when the pair is over repeats). Devices are matched by name.
 */
export const deviceDifferences = (comparison: RunComparison): number[] => {
  const byId = new Map(comparison.runs.map((run) => [run.run_id, run]));
  return comparison.pairs.flatMap((pair) => {
    const baseline = sideDeviceMeans(pair.baseline_run_ids.map((id) => byId.get(id)), pair.mechanism);
    const treatment = sideDeviceMeans(pair.treatment_run_ids.map((id) => byId.get(id)), pair.mechanism);
    return [...treatment].flatMap(([name, mean]) => {
      const base = baseline.get(name);
      return base === undefined ? [] : [mean - base];
    });
  });
};

/**
 * Figures 5-11's boxes across conditions: one box per run over all its devices, as the
 * SRUP paper draws them (quartiles and median, whiskers at the minimum and maximum); an
 * interleaved run's one per mechanism, in the mechanism's colour. None for a run (or
 * mechanism) that delivered nothing.
 */
export const runBoxes = (runs: readonly ComparedRun[], labels: ReadonlyMap<string, string>): BoxSummary[] =>
  runs.flatMap((run) => partsOf(run, labels)).flatMap((part) => {
    const { all } = part;
    if (all.q1_ms === null || all.median_ms === null || all.q3_ms === null || all.min_ms === null || all.max_ms === null) {
      return [];
    }
    return [
      {
        name: part.name,
        ...(part.interleaved && part.mechanism ? { colour: colourOf(part.mechanism) } : {}),
        q1: all.q1_ms,
        median: all.median_ms,
        q3: all.q3_ms,
        whiskerLow: all.min_ms,
        whiskerHigh: all.max_ms,
        mean: all.mean_ms,
        outlierSample: [],
      },
    ];
  });

/** Linear-interpolation quantile of sorted values (numpy's default, as the server's). */
const quantile = (sorted: readonly number[], q: number): number => {
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
};

/** Tukey's box of a few values: quartiles, whiskers at the last values within 1.5 IQR. */
export const boxOf = (name: string, values: readonly number[]): BoxSummary | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const q1 = quantile(sorted, 0.25);
  const q3 = quantile(sorted, 0.75);
  const fence = 1.5 * (q3 - q1);
  const inside = sorted.filter((v) => v >= q1 - fence && v <= q3 + fence);
  return {
    name,
    q1,
    median: quantile(sorted, 0.5),
    q3,
    whiskerLow: inside[0]!,
    whiskerHigh: inside[inside.length - 1]!,
    mean: sorted.reduce((sum, v) => sum + v, 0) / sorted.length,
    outlierSample: sorted.filter((v) => v < q1 - fence || v > q3 + fence),
  };
};
