import { describe, expect, it } from 'vitest';

import {
  GROUP_COLOURS,
  groupStyles,
  hasCategoryValues,
  logAxisTicks,
  toCategoryLineFigure,
  toGroupedBarFigure,
  toStackedBarFigure,
  type CategoryChartData,
} from './figures';

const mechanisms: CategoryChartData = {
  categories: ['AES-128-CBC', 'RSA-2048 PKCS#1 v1.5 (SHA-256)'],
  series: [
    { name: 'encrypt / sign', values: [1.5, 900], errors: [0.1, null] },
    { name: 'decrypt / verify', values: [1.6, null] },
  ],
};

describe('hasCategoryValues', () => {
  it('should say whether any series has a finite value', () => {
    expect(hasCategoryValues(mechanisms)).toBe(true);
    expect(hasCategoryValues({ categories: ['a'], series: [{ name: 's', values: [null] }] })).toBe(false);
    expect(hasCategoryValues({ categories: [], series: [] })).toBe(false);
  });
});

describe('toGroupedBarFigure', () => {
  it('should draw one bar trace per series over the categories, with error bars when given', () => {
    const figure = toGroupedBarFigure(mechanisms, { categoryLabel: 'Mechanism', valueLabel: 'Mean time (µs)' });
    expect(figure.layout.barmode).toBe('group');
    expect(figure.data).toEqual([
      expect.objectContaining({
        type: 'bar',
        name: 'encrypt / sign',
        x: ['AES-128-CBC', 'RSA-2048 PKCS#1 v1.5 (SHA-256)'],
        y: [1.5, 900],
        error_y: { type: 'data', array: [0.1, null], visible: true },
      }),
      expect.objectContaining({ type: 'bar', name: 'decrypt / verify', y: [1.6, null] }),
    ]);
    expect(figure.data[1]).not.toHaveProperty('error_y');
    expect(figure.layout.xaxis).toMatchObject({ title: { text: 'Mechanism' }, type: 'category' });
    expect(figure.layout.yaxis).toMatchObject({
      title: { text: 'Mean time (µs)' },
      type: 'linear',
      // No SI prefixes: "100µ" on a µs axis would be misread.
      exponentformat: 'none',
    });
  });

  it('should use a logarithmic value axis on request', () => {
    const figure = toGroupedBarFigure(mechanisms, { categoryLabel: 'x', valueLabel: 'y', logScale: true });
    expect(figure.layout.yaxis).toMatchObject({ type: 'log' });
  });

  it('should draw an interval that is not symmetric with separate lower distances', () => {
    const figure = toGroupedBarFigure(
      { categories: ['LAN'], series: [{ name: 'Overhead', values: [52], errors: [3], errorsMinus: [2] }] },
      { categoryLabel: 'Condition', valueLabel: 'ms' },
    );
    expect(figure.data[0]).toMatchObject({
      error_y: { type: 'data', array: [3], symmetric: false, arrayminus: [2], visible: true },
    });
  });
});

describe('toStackedBarFigure', () => {
  it('should stack the series of each category, first series at the bottom, without error bars', () => {
    const figure = toStackedBarFigure(mechanisms, { categoryLabel: 'Run', valueLabel: 'Bytes' });
    expect(figure.layout.barmode).toBe('stack');
    expect(figure.data.map((trace) => ('name' in trace ? trace.name : null))).toEqual([
      'encrypt / sign',
      'decrypt / verify',
    ]);
    expect(figure.data[0]).toMatchObject({ type: 'bar', y: [1.5, 900] });
    expect(figure.data[0]).not.toHaveProperty('error_y');
    // More parts than Plotly's 10 default colours: the longer palette keeps them apart.
    expect(figure.layout.colorway).toEqual([...GROUP_COLOURS]);
  });
});

describe('toCategoryLineFigure', () => {
  it('should draw one line per series over the ordered categories, leaving gaps open', () => {
    const figure = toCategoryLineFigure(
      { categories: ['16 B', '8 KiB'], series: [{ name: 'AES-128-CBC encrypt', values: [10, null] }] },
      { categoryLabel: 'Data size', valueLabel: 'Throughput (MB/s)' },
    );
    expect(figure.data).toEqual([
      expect.objectContaining({
        type: 'scatter',
        mode: 'lines+markers',
        name: 'AES-128-CBC encrypt',
        x: ['16 B', '8 KiB'],
        y: [10, null],
        connectgaps: false,
      }),
    ]);
    expect(figure.layout.xaxis).toMatchObject({ title: { text: 'Data size' }, type: 'category' });
    expect(figure.data[0]).not.toHaveProperty('line');
  });

  it('should colour a group alike and tell its lines apart by dash', () => {
    const figure = toCategoryLineFigure(
      {
        categories: ['16 B'],
        series: [
          { name: 'AES encrypt', values: [1], group: 'aes' },
          { name: 'AES decrypt', values: [1], group: 'aes' },
          { name: 'RSA sign', values: [1], group: 'rsa' },
        ],
      },
      { categoryLabel: 'Data size', valueLabel: 'Throughput (MB/s)' },
    );
    expect(figure.data.map((trace) => (trace as { line?: unknown }).line)).toEqual([
      { color: GROUP_COLOURS[0], dash: 'solid' },
      { color: GROUP_COLOURS[0], dash: 'dot' },
      { color: GROUP_COLOURS[1], dash: 'solid' },
    ]);
  });
});

describe('groupStyles', () => {
  it('should keep a group its colour when its series are not adjacent, and skip ungrouped series', () => {
    expect(
      groupStyles([
        { name: 'a1', values: [], group: 'a' },
        { name: 'free', values: [] },
        { name: 'b1', values: [], group: 'b' },
        { name: 'a2', values: [], group: 'a' },
      ]),
    ).toEqual([
      { color: GROUP_COLOURS[0], dash: 'solid' },
      null,
      { color: GROUP_COLOURS[1], dash: 'solid' },
      { color: GROUP_COLOURS[0], dash: 'dot' },
    ]);
  });

  it('should reuse colours once every one is taken', () => {
    const series = Array.from({ length: GROUP_COLOURS.length + 1 }, (_, i) => ({ name: `s${i}`, values: [], group: `g${i}` }));
    expect(groupStyles(series).at(-1)).toEqual({ color: GROUP_COLOURS[0], dash: 'solid' });
  });
});

describe('logAxisTicks', () => {
  it('should tick 1-2-5 over two decades and only the decades over more', () => {
    expect(logAxisTicks([3, 40, null, 250])).toMatchObject({ dtick: 'D2', exponentformat: 'none' });
    expect(logAxisTicks([0.002, 15, 90_000])).toMatchObject({ dtick: 1, exponentformat: 'none' });
  });

  it('should give a log-scale line chart those ticks', () => {
    const figure = toCategoryLineFigure(
      { categories: ['1 KiB', '1 GiB'], series: [{ name: 'AES', values: [0.01, 5000] }] },
      { categoryLabel: 'Size', valueLabel: 'MB/s', logScale: true },
    );
    expect(figure.layout.yaxis).toMatchObject({ type: 'log', dtick: 1 });
  });
});
