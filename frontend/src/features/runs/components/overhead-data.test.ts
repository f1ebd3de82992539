import { describe, expect, it } from 'vitest';

import { roundTripStatisticsFixture, runStatisticsFixture } from '@/testing/mocks/db';
import type { ComparedRun, PairComparison, RunComparison } from '@/types/api';

import {
  boxOf,
  deviceDifferences,
  deviceMeansChartData,
  overheadChartData,
  pairConditionLabels,
  pairMeansChartData,
  runBoxes,
} from './overhead-data';

/** A run with two devices whose means are `a` and `b` (ms), under `network`. */
const run = (id: string, network: string, protocol: string, a: number, b: number): ComparedRun => ({
  run_id: id,
  experiment_id: `exp-${protocol}`,
  experiment_name: protocol.toUpperCase(),
  label: `${protocol.toUpperCase()} · ${network}`,
  repeat: 1,
  treatment: { protocol },
  conditions: { network, qos: 1 },
  statistics: runStatisticsFixture(id, {
    devices: [
      roundTripStatisticsFixture({ device_name: 'pi-1', mean_ms: a }),
      roundTripStatisticsFixture({ device_name: 'pi-2', mean_ms: b }),
    ],
  }),
});

const pair = (baseline: string, treatment: string, means: [number, number], ci: [number, number]): PairComparison => ({
  baseline_run_id: baseline,
  treatment_run_id: treatment,
  baseline_run_ids: [baseline],
  treatment_run_ids: [treatment],
  baseline_label: baseline,
  treatment_label: treatment,
  repeat: 1,
  parameter: 'protocol',
  interval_level: 'messages',
  differs_in: [{ key: 'protocol', baseline: 'mqtt', treatment: 'srup' }],
  baseline_mean_ms: means[0],
  treatment_mean_ms: means[1],
  overhead_ms: means[1] - means[0],
  ci_low_ms: ci[0],
  ci_high_ms: ci[1],
  relative_overhead_pct: null,
  verdict: 'slower',
  verdict_text: 'slower',
  max_rate_hz: null,
  mechanism: null,
  mechanism_text: '',
});

// Two network conditions, MQTT and SRUP in each: the SRUP paper's design in small.
const comparison: RunComparison = {
  runs: [
    run('m-lan', 'LAN', 'mqtt', 10, 12),
    run('s-lan', 'LAN', 'srup', 60, 66),
    run('m-3g', '3G poor', 'mqtt', 200, 220),
    run('s-3g', '3G poor', 'srup', 250, 290),
  ],
  pairs: [pair('m-lan', 's-lan', [11, 63], [50, 55]), pair('m-3g', 's-3g', [210, 270], [40, 85])],
  unmatched: [],
  bootstrap: { resamples: 2000, draw_max: 20000, seed: 1 },
};

describe('comparison figures (SRUP paper, Figures 7–10)', () => {
  it('labels each pair by the conditions that differ between pairs', () => {
    expect(pairConditionLabels(comparison)).toEqual(['network: LAN', 'network: 3G poor']);
    const same = { ...comparison, pairs: [comparison.pairs[0]!, comparison.pairs[0]!] };
    expect(pairConditionLabels(same)).toEqual(['Pair 1', 'Pair 2']);
    // A network profile in the spec is named by its name, not its whole definition.
    const profiled = {
      ...comparison,
      runs: comparison.runs.map((run, i) => ({
        ...run,
        conditions: { network_profile: { id: `p${i < 2 ? 1 : 2}`, name: i < 2 ? 'LAN' : 'Poor 3G', spec: {} } },
      })),
    };
    expect(pairConditionLabels(profiled)).toEqual(['network_profile: LAN', 'network_profile: Poor 3G']);
  });

  it('should colour the sides of a security pair with their mechanisms’ shared colours', () => {
    const secured = {
      ...comparison,
      pairs: comparison.pairs.map((p) => ({
        ...p,
        differs_in: [{ key: 'security', baseline: 'none', treatment: 'aes-128-cbc' }],
      })),
    };
    expect(pairMeansChartData(secured).series.map((s) => s.colourKey)).toEqual(['none', 'aes-128-cbc']);
  });

  it('puts baseline and treatment means side by side per condition', () => {
    expect(pairMeansChartData(comparison)).toEqual({
      categories: ['network: LAN', 'network: 3G poor'],
      series: [
        { name: 'protocol: mqtt', values: [11, 210] },
        { name: 'protocol: srup', values: [63, 270] },
      ],
    });
  });

  it('draws the overhead with its asymmetric bootstrap interval', () => {
    expect(overheadChartData(comparison)).toEqual({
      categories: ['network: LAN', 'network: 3G poor'],
      series: [{ name: 'Overhead', values: [52, 60], errors: [3, 25], errorsMinus: [2, 20] }],
    });
  });

  it('shows each run’s mean per device', () => {
    const labels = new Map([['m-lan', 'MQTT LAN']]);
    const data = deviceMeansChartData(comparison.runs.slice(0, 2), labels);
    expect(data.categories).toEqual(['MQTT LAN', 's-lan']);
    expect(data.series).toEqual([
      { name: 'pi-1', values: [10, 60] },
      { name: 'pi-2', values: [12, 66] },
    ]);
  });

  it('takes the per-device differences of every pair, matched by device name', () => {
    expect(deviceDifferences(comparison)).toEqual([50, 54, 50, 70]);
  });

  it('should take each side of a pair over repeats from every run of that side, not its first', () => {
    const repeats: RunComparison = {
      runs: [
        run('m-1', 'LAN', 'mqtt', 10, 12),
        run('m-2', 'LAN', 'mqtt', 14, 20),
        run('s-1', 'LAN', 'srup', 60, 66),
        run('s-2', 'LAN', 'srup', 80, 70),
        run('s-3', 'LAN', 'srup', 70, 74),
      ],
      pairs: [
        {
          ...pair('m-1', 's-1', [14, 70], [40, 70]),
          repeat: null,
          interval_level: 'runs',
          baseline_run_ids: ['m-1', 'm-2'],
          treatment_run_ids: ['s-1', 's-2', 's-3'],
        },
      ],
      unmatched: [],
      bootstrap: comparison.bootstrap,
    };
    // pi-1: (60 + 80 + 70) / 3 − (10 + 14) / 2 = 70 − 12; pi-2: 70 − 16. The first runs
    // alone would give 50 and 54.
    expect(deviceDifferences(repeats)).toEqual([58, 54]);
  });

  it('should leave out a device that delivered nothing on one side', () => {
    const silent: ComparedRun = {
      ...run('s-x', 'LAN', 'srup', 60, 66),
      statistics: runStatisticsFixture('s-x', {
        devices: [
          roundTripStatisticsFixture({ device_name: 'pi-1', mean_ms: 61 }),
          roundTripStatisticsFixture({ device_name: 'pi-2', mean_ms: null }),
        ],
      }),
    };
    const one = { ...comparison, runs: [comparison.runs[0]!, silent], pairs: [pair('m-lan', 's-x', [11, 61], [1, 2])] };
    expect(deviceDifferences(one)).toEqual([51]);
  });

  it('computes Tukey’s box of the differences with numpy’s quartiles', () => {
    // numpy.percentile([1, 2, 3, 4, 100], [25, 50, 75]) = 2, 3, 4; fence 1.5 × 2 = 3.
    expect(boxOf('differences', [4, 100, 1, 3, 2])).toEqual({
      name: 'differences',
      q1: 2,
      median: 3,
      q3: 4,
      whiskerLow: 1,
      whiskerHigh: 4,
      mean: 22,
      outlierSample: [100],
    });
    expect(boxOf('none', [])).toBeNull();
  });

  it('draws one box per run with whiskers at its minimum and maximum, as the paper does', () => {
    const [first] = runBoxes(comparison.runs.slice(0, 1), new Map([['m-lan', 'MQTT LAN']]));
    // runStatisticsFixture's all devices: q1 10, median 12, q3 14, min 8.1, max 30, mean 12.37.
    expect(first).toEqual({
      name: 'MQTT LAN',
      q1: 10,
      median: 12,
      q3: 14,
      whiskerLow: 8.1,
      whiskerHigh: 30,
      mean: 12.37,
      outlierSample: [],
    });
  });

  it('should take an interleaved side of a pair from its devices of the pair’s mechanism only', () => {
    const mechanism = (name: string, a: number, b: number) => ({
      mechanism: name,
      devices: [
        roundTripStatisticsFixture({ device_name: 'pi-1', mean_ms: a }),
        roundTripStatisticsFixture({ device_name: 'pi-2', mean_ms: b }),
      ],
      all_devices: roundTripStatisticsFixture({ device_id: null, device_name: 'All devices' }),
      mean_of_device_means_ms: (a + b) / 2,
      overhead: null,
    });
    const interleaved = (id: string, network: string, shift: number): ComparedRun => {
      const base = run(id, network, 'mqtt', 100, 100); // the mixed means: never used
      return {
        ...base,
        statistics: { ...base.statistics, mechanisms: [mechanism('none', 1 + shift, 2 + shift), mechanism('aes-128-cbc', 3 + shift, 5 + shift)] },
      };
    };
    const lan = interleaved('i-lan', 'LAN', 0);
    const cellular = interleaved('i-3g', '3G poor', 10);
    const pairs = ['none', 'aes-128-cbc'].map((name) => ({
      ...pair('i-lan', 'i-3g', [0, 0], [0, 0]),
      mechanism: name,
    }));
    const byMechanism: RunComparison = { ...comparison, runs: [lan, cellular], pairs };

    expect(deviceDifferences(byMechanism)).toEqual([10, 10, 10, 10]);
    expect(pairConditionLabels(byMechanism)).toEqual(['none', 'aes-128-cbc']);
    expect(deviceMeansChartData([lan], new Map([['i-lan', 'LAN']]))).toEqual({
      categories: ['LAN · none', 'LAN · aes-128-cbc'],
      series: [
        { name: 'pi-1', values: [1, 3] },
        { name: 'pi-2', values: [2, 5] },
      ],
    });
  });
});
