import { describe, expect, it } from 'vitest';

import { roundTripStatisticsFixture } from '@/testing/mocks/db';
import type { DeviceDistribution, RunDistribution } from '@/types/api';

import { deviceBoxes, pooledDensity, pooledHistogram, sequenceEnvelope } from './distribution-data';

const device = (overrides: Partial<DeviceDistribution>): DeviceDistribution => ({
  device_id: 'd1',
  device_name: 'pi-1',
  mechanism: null,
  n: 0,
  counts: [],
  below: 0,
  above: 0,
  box: null,
  density: null,
  series: { seq_first: [], seq_last: [], min_ms: [], max_ms: [], mean_ms: [] },
  ...overrides,
});

const distribution = (devices: DeviceDistribution[]): RunDistribution => ({
  run_id: 'r1',
  low_ms: 0,
  high_ms: 3,
  edges_ms: [0, 1, 2, 3],
  grid_ms: [0, 1.5, 3],
  density_method: 'binned Gaussian KDE',
  devices,
});

describe('pooledHistogram', () => {
  it("should add the devices' counts bin by bin", () => {
    const pooled = pooledHistogram(
      distribution([device({ counts: [1, 2, 3] }), device({ device_id: 'd2', counts: [4, 0, 1] })]),
      'run A',
    );
    expect(pooled).toEqual({ name: 'run A', edges: [0, 1, 2, 3], counts: [5, 2, 4] });
  });
});

describe('pooledDensity', () => {
  it("should weigh each device's density by its delivered messages", () => {
    const pooled = pooledDensity(
      distribution([
        device({ n: 3, density: [0.2, 0.4, 0.2] }),
        device({ device_id: 'd2', n: 1, density: [0.6, 0, 0] }),
        // Too few values for a density: left out of the mixture.
        device({ device_id: 'd3', n: 1, density: null }),
      ]),
      'run A',
    );
    expect(pooled.density?.map((d) => Number(d.toFixed(6)))).toEqual([0.3, 0.3, 0.15]);
  });

  it('should have no density when no device has one', () => {
    expect(pooledDensity(distribution([device({ n: 1 })]), 'run A').density).toBeNull();
  });
});

describe('deviceBoxes', () => {
  it("should skip devices without a box and add each device's mean", () => {
    const box = { q1_ms: 1, median_ms: 2, q3_ms: 3, whisker_low_ms: 0.5, whisker_high_ms: 4, outliers: 1, outlier_sample_ms: [9] };
    const boxes = deviceBoxes(distribution([device({ box }), device({ device_id: 'd2', device_name: 'pi-2' })]), [
      roundTripStatisticsFixture({ device_id: 'd1', mean_ms: 2.5 }),
    ]);
    expect(boxes).toEqual([
      { name: 'pi-1', q1: 1, median: 2, q3: 3, whiskerLow: 0.5, whiskerHigh: 4, mean: 2.5, outlierSample: [9] },
    ]);
  });
});

describe('sequenceEnvelope', () => {
  it('should place each bucket at the middle of its sequence numbers', () => {
    const envelope = sequenceEnvelope(
      device({ series: { seq_first: [0, 10], seq_last: [9, 19], min_ms: [1, 2], max_ms: [5, 6], mean_ms: [2, 3] } }),
    );
    expect(envelope).toEqual({ x: [4.5, 14.5], min: [1, 2], max: [5, 6], mean: [2, 3] });
  });
});
