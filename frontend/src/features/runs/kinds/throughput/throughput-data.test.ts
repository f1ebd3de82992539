import { describe, expect, it } from 'vitest';

import type { BenchOperation, BenchSummaryRow } from '@/types/api';

import {
  hasRelativeCosts,
  modeLabel,
  packetRateChartData,
  relativeCostChartData,
  sortThroughputRows,
} from './throughput-data';

const PI1 = '5d1c0d9e-0000-4000-8000-000000000001';
const PI2 = '5d1c0d9e-0000-4000-8000-000000000002';

const row = (
  mechanism: string,
  operation: BenchOperation,
  payloadBytes: number,
  packetsPerS: number,
  overrides: Partial<BenchSummaryRow> = {},
): BenchSummaryRow => ({
  device_id: PI1,
  device_name: 'pi-lab-1',
  mechanism,
  operation,
  data_bytes: payloadBytes,
  n: 10,
  mean_us: 2_000_000,
  var_us2: 1,
  std_us: 1,
  cpu_mean_us: 1_900_000,
  throughput_mb_s: 0,
  peak_rss_kb: 20_000,
  calls_per_repetition: null,
  packets_per_s_mean: packetsPerS,
  packets_per_s_std: packetsPerS / 100,
  net_mean_us: null,
  relative_cost: null,
  ...overrides,
});

const LABELS: Record<string, string> = { none: 'None', 'aes-128-cbc': 'AES-128-CBC', 'present-80-cbc': 'PRESENT-80-CBC' };
const labelFor = (name: string) => LABELS[name] ?? name;
const ORDER = ['none', 'aes-128-cbc', 'present-80-cbc'];

describe('modeLabel', () => {
  it('should name the secure-only and secure-and-send modes, and fall back to the operation', () => {
    expect(modeLabel('secure')).toBe('Secure only (nothing sent)');
    expect(modeLabel('send')).toBe('Secure + send over UDP');
    expect(modeLabel('encrypt')).toBe('encrypt');
  });
});

describe('sortThroughputRows', () => {
  it('should order by device, catalogue mechanism order, mode (secure only first), then payload size', () => {
    const rows = [
      row('present-80-cbc', 'send', 1, 1),
      row('aes-128-cbc', 'send', 1280, 1),
      row('aes-128-cbc', 'secure', 1280, 1),
      row('aes-128-cbc', 'send', 1, 1),
      row('rot13', 'secure', 1, 1),
      row('none', 'secure', 1, 1),
      row('aes-128-cbc', 'secure', 1, 1),
      row('none', 'secure', 1, 1, { device_id: PI2, device_name: 'pi-lab-0' }),
    ];

    expect(sortThroughputRows(rows, ORDER).map((r) => `${r.device_name} ${r.mechanism} ${r.operation} ${r.data_bytes}`)).toEqual([
      'pi-lab-0 none secure 1',
      'pi-lab-1 none secure 1',
      'pi-lab-1 aes-128-cbc secure 1',
      'pi-lab-1 aes-128-cbc secure 1280',
      'pi-lab-1 aes-128-cbc send 1',
      'pi-lab-1 aes-128-cbc send 1280',
      'pi-lab-1 present-80-cbc send 1',
      'pi-lab-1 rot13 secure 1',
    ]);
  });
});

describe('hasRelativeCosts', () => {
  it('should say whether the run measured the "none" baseline', () => {
    expect(hasRelativeCosts([row('aes-128-cbc', 'secure', 1, 1)])).toBe(false);
    expect(hasRelativeCosts([row('aes-128-cbc', 'secure', 1, 1, { relative_cost: 2 })])).toBe(true);
    expect(hasRelativeCosts([])).toBe(false);
  });
});

describe('packetRateChartData', () => {
  const rows = sortThroughputRows(
    [
      // A mechanism measured in the network mode only comes first: the modes keep their order.
      row('none', 'send', 1, 50_000, { packets_per_s_std: null }),
      row('none', 'secure', 1280, 150_000),
      row('aes-128-cbc', 'secure', 1, 80_000),
      row('aes-128-cbc', 'send', 1, 30_000),
      row('none', 'send', 1280, 40_000),
    ],
    ORDER,
  );

  it('should put mechanisms on the axis, one series per mode, ± standard deviation', () => {
    expect(packetRateChartData(rows, 1, labelFor)).toEqual({
      categories: ['None', 'AES-128-CBC'],
      series: [
        { name: 'Secure only (nothing sent)', values: [null, 80_000], errors: [null, 800] },
        { name: 'Secure + send over UDP', values: [50_000, 30_000], errors: [null, 300] },
      ],
    });
  });

  it('should only use the rows of the chosen payload size', () => {
    expect(packetRateChartData(rows, 1280, labelFor)).toEqual({
      categories: ['None'],
      series: [
        { name: 'Secure only (nothing sent)', values: [150_000], errors: [1500] },
        { name: 'Secure + send over UDP', values: [40_000], errors: [400] },
      ],
    });
    expect(packetRateChartData(rows, undefined, labelFor)).toEqual({ categories: [], series: [] });
  });

  it('should name the device in each series when several devices took part', () => {
    const twoDevices = sortThroughputRows(
      [
        row('none', 'send', 1, 1, { device_id: PI2, device_name: 'pi-lab-2' }),
        row('none', 'secure', 1, 1),
        row('none', 'secure', 1, 1, { device_id: PI2, device_name: 'pi-lab-2' }),
      ],
      ORDER,
    );
    expect(packetRateChartData(twoDevices, 1, labelFor).series.map((s) => s.name)).toEqual([
      'pi-lab-1 · Secure only (nothing sent)',
      'pi-lab-2 · Secure only (nothing sent)',
      'pi-lab-2 · Secure + send over UDP',
    ]);
  });
});

describe('relativeCostChartData', () => {
  it('should chart the relative cost per mechanism and mode, without error bars', () => {
    const rows = sortThroughputRows(
      [
        row('none', 'secure', 1, 100_000, { relative_cost: 1 }),
        row('none', 'send', 1, 50_000, { relative_cost: 1 }),
        row('present-80-cbc', 'secure', 1, 25_000, { relative_cost: 4 }),
        row('present-80-cbc', 'send', 1, 20_000, { relative_cost: 2.5 }),
      ],
      ORDER,
    );
    expect(relativeCostChartData(rows, 1, labelFor)).toEqual({
      categories: ['None', 'PRESENT-80-CBC'],
      series: [
        { name: 'Secure only (nothing sent)', values: [1, 4] },
        { name: 'Secure + send over UDP', values: [1, 2.5] },
      ],
    });
  });
});
