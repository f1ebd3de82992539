import { describe, expect, it } from 'vitest';

import type { BenchOperation, BenchSummaryRow } from '@/types/api';

import { dataSizesOf, mechanismBarsData, rank, seriesPrefix, rowSorter, type MechanismBarsSpec } from './bench-rows';

const PI1 = '5d1c0d9e-0000-4000-8000-000000000001';
const PI2 = '5d1c0d9e-0000-4000-8000-000000000002';

// Only the fields these helpers read; the kinds' tests build whole rows.
type RowArgs = [mechanism: string, operation: BenchOperation, dataBytes: number, meanUs: number, more?: Partial<BenchSummaryRow>];

const row = (...[mechanism, operation, dataBytes, meanUs, more]: RowArgs): BenchSummaryRow =>
  ({ device_id: PI1, device_name: 'pi-lab-1', mechanism, operation, data_bytes: dataBytes, mean_us: meanUs, std_us: 1, ...more }) as BenchSummaryRow;

const LABELS: Record<string, string> = { a: 'Alpha', b: 'Beta' };
const labelFor = (name: string) => LABELS[name] ?? name;

describe('rank', () => {
  it('should put listed values in their order and unlisted ones after them all', () => {
    expect(rank(['x', 'y'], 'y')).toBe(1);
    expect(rank(['x', 'y'], 'z')).toBe(2);
  });
});

describe('rowSorter', () => {
  it('should order by device, catalogue mechanism order (unknown ones last, by name), then the kind order', () => {
    const rows = [
      row('zz', 'encrypt', 1, 1),
      row('b', 'encrypt', 2, 1),
      row('yy', 'encrypt', 1, 1),
      row('b', 'encrypt', 1, 1),
      row('a', 'encrypt', 1, 1, { device_id: PI2, device_name: 'pi-lab-0' }),
      row('a', 'encrypt', 1, 1),
    ];
    const bySize = (x: BenchSummaryRow, y: BenchSummaryRow) => x.data_bytes - y.data_bytes;
    expect(
      rowSorter(bySize)(rows, ['a', 'b']).map((r) => `${r.device_name} ${r.mechanism} ${r.data_bytes}`),
    ).toEqual(['pi-lab-0 a 1', 'pi-lab-1 a 1', 'pi-lab-1 b 1', 'pi-lab-1 b 2', 'pi-lab-1 yy 1', 'pi-lab-1 zz 1']);
  });

  it('should leave the rows it was given in their order', () => {
    const rows = [row('b', 'encrypt', 1, 1), row('a', 'encrypt', 1, 1)];
    rowSorter(() => 0)(rows, ['a', 'b']);
    expect(rows.map((r) => r.mechanism)).toEqual(['b', 'a']);
  });
});

describe('dataSizesOf', () => {
  it('should list each size once, smallest first', () => {
    expect(dataSizesOf([row('a', 'encrypt', 1280, 1), row('a', 'encrypt', 1, 1), row('b', 'encrypt', 1, 1)])).toEqual([1, 1280]);
  });
});

describe('seriesPrefix', () => {
  it('should name the device only when several devices took part', () => {
    const one = [row('a', 'encrypt', 1, 1)];
    const two = [...one, row('a', 'encrypt', 1, 1, { device_id: PI2, device_name: 'pi-lab-2' })];
    expect(seriesPrefix(one)(row('a', 'encrypt', 1, 1))).toBe('');
    expect(seriesPrefix(two)(two[1] as BenchSummaryRow)).toBe('pi-lab-2 · ');
  });
});

describe('mechanismBarsData', () => {
  const byOperation: MechanismBarsSpec = {
    seriesOf: (r) => r.operation,
    nameOf: (operations) => operations.join(' + '),
    value: (r) => r.mean_us,
  };

  it('should put one value per mechanism at the chosen size, one series per key, without errors unless asked', () => {
    const rows = [row('a', 'encrypt', 1, 10), row('a', 'decrypt', 1, 11), row('b', 'encrypt', 1, 20), row('a', 'encrypt', 2, 99)];
    expect(mechanismBarsData(rows, 1, labelFor, byOperation)).toEqual({
      categories: ['Alpha', 'Beta'],
      series: [
        { name: 'encrypt', values: [10, 20] },
        { name: 'decrypt', values: [11, null] },
      ],
    });
    expect(mechanismBarsData(rows, undefined, labelFor, byOperation)).toEqual({ categories: [], series: [] });
  });

  it('should add error bars, name a series after all its operations and order series by device, then the spec', () => {
    const rows = [
      row('a', 'send', 1, 10, { std_us: 2 }),
      row('a', 'secure', 1, 5, { std_us: 1 }),
      row('b', 'sign', 1, 7, { std_us: null, device_id: PI2, device_name: 'pi-lab-2' }),
    ];
    const spec: MechanismBarsSpec = {
      seriesOf: () => 'all',
      nameOf: (operations) => [...operations].sort().join(' / '),
      seriesOrder: (x, y) => x.localeCompare(y),
      value: (r) => r.mean_us,
      error: (r) => r.std_us,
    };
    expect(mechanismBarsData(rows, 1, labelFor, spec)).toEqual({
      categories: ['Alpha', 'Beta'],
      series: [
        { name: 'pi-lab-1 · secure / send', values: [5, null], errors: [1, null] },
        { name: 'pi-lab-2 · sign', values: [null, 7], errors: [null, null] },
      ],
    });
  });

  it('should order series by the spec, not by which came first', () => {
    const rows = [row('a', 'send', 1, 10), row('b', 'secure', 1, 5)];
    const secureFirst = { ...byOperation, seriesOrder: (x: string, y: string) => rank(['secure', 'send'], x) - rank(['secure', 'send'], y) };
    expect(mechanismBarsData(rows, 1, labelFor, secureFirst).series.map((s) => s.name)).toEqual(['secure', 'send']);
  });
});
