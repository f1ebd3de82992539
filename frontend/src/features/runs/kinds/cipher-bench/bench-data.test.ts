import { describe, expect, it } from 'vitest';

import type { BenchOperation, BenchSummaryRow } from '@/types/api';

import { dataSizesOf, meanTimeChartData, sortBenchRows, throughputChartData } from './bench-data';

const PI1 = '5d1c0d9e-0000-4000-8000-000000000001';
const PI2 = '5d1c0d9e-0000-4000-8000-000000000002';

const row = (
  mechanism: string,
  operation: BenchOperation,
  dataBytes: number,
  meanUs: number,
  overrides: Partial<BenchSummaryRow> = {},
): BenchSummaryRow => ({
  device_id: PI1,
  device_name: 'pi-lab-1',
  mechanism,
  operation,
  data_bytes: dataBytes,
  n: 100,
  mean_us: meanUs,
  var_us2: 0.25,
  std_us: 0.5,
  cpu_mean_us: meanUs,
  throughput_mb_s: dataBytes / meanUs,
  peak_rss_kb: 20_000,
  calls_per_repetition: null,
  // Throughput runs only.
  packets_per_s_mean: null,
  packets_per_s_std: null,
  net_mean_us: null,
  relative_cost: null,
  ...overrides,
});

const LABELS: Record<string, string> = { 'aes-128-cbc': 'AES-128-CBC', 'rsa-2048-pss': 'RSA-2048 PSS' };
const labelFor = (name: string) => LABELS[name] ?? name;
const ORDER = ['aes-128-cbc', 'rsa-2048-pss'];

describe('sortBenchRows', () => {
  it('should order by device, catalogue mechanism order, size, then operation and its inverse', () => {
    const rows = [
      row('rsa-2048-pss', 'verify', 16, 50),
      row('rot13', 'encrypt', 16, 1),
      row('aes-128-cbc', 'decrypt', 16, 2),
      row('aes-128-cbc', 'encrypt', 8192, 20),
      row('rsa-2048-pss', 'sign', 16, 900),
      row('aes-128-cbc', 'encrypt', 16, 1),
      row('aes-128-cbc', 'encrypt', 16, 1, { device_id: PI2, device_name: 'pi-lab-0' }),
    ];

    expect(sortBenchRows(rows, ORDER).map((r) => `${r.device_name} ${r.mechanism} ${r.data_bytes} ${r.operation}`)).toEqual([
      'pi-lab-0 aes-128-cbc 16 encrypt',
      'pi-lab-1 aes-128-cbc 16 encrypt',
      'pi-lab-1 aes-128-cbc 16 decrypt',
      'pi-lab-1 aes-128-cbc 8192 encrypt',
      'pi-lab-1 rsa-2048-pss 16 sign',
      'pi-lab-1 rsa-2048-pss 16 verify',
      'pi-lab-1 rot13 16 encrypt',
    ]);
  });
});

describe('dataSizesOf', () => {
  it('should list each size once, smallest first', () => {
    expect(dataSizesOf([row('a', 'encrypt', 8192, 1), row('a', 'encrypt', 16, 1), row('b', 'encrypt', 16, 1)])).toEqual([
      16, 8192,
    ]);
  });
});

describe('meanTimeChartData', () => {
  const rows = sortBenchRows(
    [
      row('aes-128-cbc', 'encrypt', 16, 1.5, { std_us: 0.1 }),
      row('aes-128-cbc', 'decrypt', 16, 1.6, { std_us: null }),
      row('rsa-2048-pss', 'sign', 16, 900, { std_us: 12 }),
      row('rsa-2048-pss', 'verify', 16, 40, { std_us: 2 }),
      row('aes-128-cbc', 'encrypt', 8192, 20),
    ],
    ORDER,
  );

  it('should put mechanisms on the axis and pair each operation with its inverse', () => {
    expect(meanTimeChartData(rows, 16, labelFor)).toEqual({
      categories: ['AES-128-CBC', 'RSA-2048 PSS'],
      series: [
        { name: 'encrypt / sign', values: [1.5, 900], errors: [0.1, 12] },
        { name: 'decrypt / verify', values: [1.6, 40], errors: [null, 2] },
      ],
    });
  });

  it('should only use the rows of the chosen data size', () => {
    expect(meanTimeChartData(rows, 8192, labelFor)).toEqual({
      categories: ['AES-128-CBC'],
      series: [{ name: 'encrypt', values: [20], errors: [0.5] }],
    });
    expect(meanTimeChartData(rows, undefined, labelFor)).toEqual({ categories: [], series: [] });
  });

  it('should name the device in each series when several devices took part', () => {
    const twoDevices = sortBenchRows(
      [row('aes-128-cbc', 'encrypt', 16, 1), row('aes-128-cbc', 'encrypt', 16, 3, { device_id: PI2, device_name: 'pi-lab-2' })],
      ORDER,
    );
    expect(meanTimeChartData(twoDevices, 16, labelFor).series.map((s) => s.name)).toEqual([
      'pi-lab-1 · encrypt',
      'pi-lab-2 · encrypt',
    ]);
  });
});

describe('throughputChartData', () => {
  it('should draw one line per mechanism and operation across the sizes, smallest first', () => {
    const rows = sortBenchRows(
      [
        row('aes-128-cbc', 'encrypt', 8192, 20, { throughput_mb_s: 409.6 }),
        row('aes-128-cbc', 'encrypt', 16, 1, { throughput_mb_s: 16 }),
        row('aes-128-cbc', 'decrypt', 16, 2, { throughput_mb_s: 8 }),
      ],
      ORDER,
    );
    expect(throughputChartData(rows, labelFor)).toEqual({
      categories: ['16 B', '8 KiB'],
      series: [
        { name: 'AES-128-CBC encrypt', values: [16, 409.6], group: `${PI1}|aes-128-cbc`, colourKey: 'aes-128-cbc' },
        { name: 'AES-128-CBC decrypt', values: [8, null], group: `${PI1}|aes-128-cbc`, colourKey: 'aes-128-cbc' },
      ],
    });
  });
});
