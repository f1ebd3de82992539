import { describe, expect, it } from 'vitest';

import {
  hasBinnedValues,
  hasDensities,
  toBinnedHistogramFigure,
  toBoxSummaryFigure,
  toViolinFigure,
} from './distribution-figures';

type Trace = Record<string, unknown>;
const traces = (figure: { data: unknown[] }) => figure.data as Trace[];

describe('toBinnedHistogramFigure', () => {
  const series = [
    { name: 'pi-1', edges: [0, 1, 3], counts: [2, 6] },
    { name: 'pi-2', edges: [0, 1, 3], counts: [0, 4] },
  ];

  it('should draw each bin as a bar at its centre, as wide as the bin', () => {
    const [first] = traces(toBinnedHistogramFigure(series, 'RTT (ms)'));
    expect(first).toMatchObject({ type: 'bar', name: 'pi-1', x: [0.5, 2], width: [1, 2], y: [2, 6] });
  });

  it('should scale each series to unit area as a density', () => {
    const figure = toBinnedHistogramFigure(series, 'RTT (ms)', 'density');
    const [first, second] = traces(figure);
    // 2 of 8 in a bin 1 wide, 6 of 8 in a bin 2 wide: 0.25·1 + 0.375·2 = 1.
    expect(first?.y).toEqual([0.25, 0.375]);
    expect(second?.y).toEqual([0, 0.5]);
    expect(figure.layout.yaxis?.title).toEqual({ text: 'Density (1/ms)' });
  });

  it('should overlay the series on one value axis', () => {
    const { layout } = toBinnedHistogramFigure(series, 'RTT (ms)');
    expect(layout.barmode).toBe('overlay');
    expect(layout.xaxis?.title).toEqual({ text: 'RTT (ms)' });
  });

  it('should know when there is nothing to draw', () => {
    expect(hasBinnedValues(series)).toBe(true);
    expect(hasBinnedValues([{ name: 'x', edges: [0, 1], counts: [0] }])).toBe(false);
  });
});

describe('toViolinFigure', () => {
  it('should outline each density around its own position, scaled by the largest density', () => {
    const figure = toViolinFigure(
      [
        { name: 'a', grid: [1, 2, 3], density: [0.5, 1, 0.5] },
        { name: 'b', grid: [1, 2, 3], density: [0.25, 0.5, 0] },
      ],
      'RTT (ms)',
    );
    const [a, b] = traces(figure);
    // Right side up the grid, then the left side back down: a closed outline.
    expect(a).toMatchObject({ fill: 'toself', y: [1, 2, 3, 3, 2, 1] });
    expect(a?.x).toEqual([0.225, 0.45, 0.225, -0.225, -0.45, -0.225]);
    expect(b?.x).toEqual([1.1125, 1.225, 1, 1, 0.775, 0.8875]);
    expect(figure.layout.xaxis).toMatchObject({ tickvals: [0, 1], ticktext: ['a', 'b'] });
  });

  it('should leave out a series without a density', () => {
    const series = [{ name: 'a', grid: [1, 2], density: null }];
    expect(hasDensities(series)).toBe(false);
    expect(traces(toViolinFigure(series, 'RTT (ms)'))[0]).toMatchObject({ x: [], y: [] });
  });
});

describe('toBoxSummaryFigure', () => {
  it("should draw boxes from their statistics and the outliers' sample beside them", () => {
    const figure = toBoxSummaryFigure(
      [
        { name: 'a', q1: 1, median: 2, q3: 3, whiskerLow: 0.5, whiskerHigh: 4, mean: 2.2, outlierSample: [9, 10] },
        { name: 'b', q1: 2, median: 3, q3: 4, whiskerLow: 1, whiskerHigh: 5, outlierSample: [] },
      ],
      'RTT (ms)',
    );
    const [a, b, outliers] = traces(figure);
    expect(a).toMatchObject({ type: 'box', x: ['a'], q1: [1], median: [2], q3: [3], lowerfence: [0.5], upperfence: [4], mean: [2.2] });
    expect(b).not.toHaveProperty('mean');
    expect(outliers).toMatchObject({ type: 'scatter', mode: 'markers', x: ['a', 'a'], y: [9, 10] });
  });
});
