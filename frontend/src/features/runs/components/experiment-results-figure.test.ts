import { describe, expect, it } from 'vitest';

import type { ExperimentCell } from '@/types/api';

import { cellAxes, defaultChoice, metricLabel, resultsChartData } from './experiment-results-figure';

const cell = (parameters: Record<string, unknown>, value: number, ci: [number, number] | null): ExperimentCell => ({
  key: JSON.stringify(parameters),
  label: Object.values(parameters).join(' · '),
  parameters,
  runs: [],
  other_runs: {},
  interval_level: 'runs',
  messages: 0,
  lost: 0,
  mean_ms: null,
  mean_ci_ms: null,
  median_ms: null,
  median_ci_ms: null,
  ci_clipped: false,
  metrics: [
    { name: 'seconds', unit: 's', value, ci },
    { name: 'peak_rss_kb', unit: 'kB', value: 100, ci: null },
  ],
});

const BENCH = [
  cell({ mechanism: 'aes-128-cbc', data_bytes: 16, operation: 'encrypt' }, 2, [1, 4]),
  cell({ mechanism: 'aes-128-cbc', data_bytes: 16, operation: 'decrypt' }, 3, [2, 5]),
  cell({ mechanism: 'null', data_bytes: 16, operation: 'encrypt' }, 1, null),
  cell({ mechanism: 'aes-128-cbc', data_bytes: 1024, operation: 'encrypt' }, 8, [7, 9]),
];

describe('experiment results figure', () => {
  it('should default a cipher bench to seconds per mechanism grouped by size', () => {
    expect(defaultChoice('cipher_bench', BENCH)).toEqual({ metric: 'seconds', x: 'mechanism', group: 'data_bytes' });
  });

  it('should default a messaging matrix to the median per first axis grouped by security', () => {
    const cells = [cell({ security: 'none', payload_size: 16 }, 1, null)];
    expect(defaultChoice('messaging', cells)).toEqual({ metric: 'seconds', x: 'payload_size', group: 'security' });
    expect(cellAxes(cells)).toEqual(['security', 'payload_size']);
  });

  it('should give each cell its own bar with asymmetric error bars from its interval', () => {
    const data = resultsChartData(BENCH, { metric: 'seconds', x: 'mechanism', group: 'data_bytes' });
    expect(data.categories).toEqual(['aes-128-cbc', 'null']);
    expect(data.series.map((s) => s.name)).toEqual(['16 B · encrypt', '16 B · decrypt', '1024 B · encrypt']);
    expect(data.series[0]).toEqual({ name: '16 B · encrypt', values: [2, 1], errors: [2, null], errorsMinus: [1, null] });
    expect(data.series[2]?.values).toEqual([8, null]);
  });
});

describe('metricLabel', () => {
  it("should name a messaging experiment's median and mean by the quantity its runs measured", () => {
    expect(metricLabel('median_ms', 'one-way delay')).toBe('Median one-way delay');
    expect(metricLabel('mean_ms', 'acknowledgement time (CON → ACK)')).toBe('Mean acknowledgement time (CON → ACK)');
    expect(metricLabel('packets_per_s', '')).toBe('Packets per second');
    expect(metricLabel('median_ms')).toBe('Median round trip');
  });
});

describe('results figure colours', () => {
  it('should colour series grouped by mechanism with the app-wide mechanism colours', () => {
    const cell = (security: string, size: number): ExperimentCell =>
      ({
        key: `${security}-${size}`,
        label: security,
        parameters: { security, payload_size: size },
        runs: [],
        other_runs: {},
        interval_level: 'runs',
        messages: 1,
        lost: 0,
        mean_ms: 1,
        mean_ci_ms: null,
        median_ms: 1,
        median_ci_ms: null,
        ci_clipped: false,
        metrics: [{ name: 'median_ms', unit: 'ms', value: 1, ci: null }],
      });
    const cells = [cell('aes-128-cbc', 16), cell('none', 16), cell('aes-128-cbc', 1024), cell('none', 1024)];
    const data = resultsChartData(cells, { metric: 'median_ms', x: 'payload_size', group: 'security' });
    expect(data.series.map((s) => [s.name, s.colourKey])).toEqual([
      ['aes-128-cbc', 'aes-128-cbc'],
      ['none', 'none'],
    ]);
    const bySize = resultsChartData(cells, { metric: 'median_ms', x: 'security', group: 'payload_size' });
    expect(bySize.series.every((s) => s.colourKey === undefined)).toBe(true);
  });
});
