import { describe, expect, it } from 'vitest';

import { HISTOGRAM_TARGET_BINS, sharedBins, toBoxFigure, toHistogramFigure, valueRange } from './figures';

describe('valueRange', () => {
  it('should span all series and skip non-finite values', () => {
    expect(
      valueRange([
        { name: 'a', values: [3, 1, Number.NaN] },
        { name: 'b', values: [7, Number.POSITIVE_INFINITY] },
      ]),
    ).toEqual({ min: 1, max: 7 });
  });

  it('should return null when there are no values', () => {
    expect(valueRange([{ name: 'a', values: [] }])).toBeNull();
  });

  it('should handle more samples than fit in a call-stack spread', () => {
    const values = Array.from({ length: 300_000 }, (_, i) => i);
    expect(valueRange([{ name: 'big', values }])).toEqual({ min: 0, max: 299_999 });
  });
});

describe('sharedBins', () => {
  it('should cover the whole range with the target number of bins', () => {
    const bins = sharedBins([
      { name: 'a', values: [0, 10] },
      { name: 'b', values: [40] },
    ]);
    expect(bins).toEqual({ start: 0, end: 41, size: 40 / HISTOGRAM_TARGET_BINS });
  });

  it('should make one unit-wide bin when all samples are equal', () => {
    expect(sharedBins([{ name: 'a', values: [5, 5] }])).toEqual({ start: 4.5, end: 6, size: 1 });
  });
});

describe('toHistogramFigure', () => {
  it('should overlay one histogram trace per series on shared bins', () => {
    const figure = toHistogramFigure(
      [
        { name: 'pi-1', values: [1, 2, 3] },
        { name: 'pi-2', values: [2, 4] },
      ],
      'Round-trip time (ms)',
    );
    expect(figure.layout.barmode).toBe('overlay');
    expect(figure.data).toHaveLength(2);
    expect(figure.data[0]).toMatchObject({ type: 'histogram', name: 'pi-1', x: [1, 2, 3] });
    expect(figure.data[1]).toMatchObject({ type: 'histogram', name: 'pi-2', x: [2, 4] });
    // Same bins for both traces.
    expect(figure.data[0]).toHaveProperty('xbins', (figure.data[1] as { xbins: unknown }).xbins);
  });
});

describe('toBoxFigure', () => {
  it('should draw one box per series with values on the y axis', () => {
    const figure = toBoxFigure([{ name: 'pi-1', values: [1, 2] }], 'Round-trip time (ms)');
    expect(figure.data).toEqual([expect.objectContaining({ type: 'box', name: 'pi-1', y: [1, 2] })]);
    expect(figure.layout.yaxis).toMatchObject({ title: { text: 'Round-trip time (ms)' } });
  });
});
