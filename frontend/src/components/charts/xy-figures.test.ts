import { describe, expect, it } from 'vitest';

import { GROUP_COLOURS } from './figures';
import { hasXyValues, isExactEnvelope, toEnvelopeFigure, toXyLineFigure, xRangeFromRelayout } from './xy-figures';

const labels = { xLabel: 'Time (s)', yLabel: 'Power (W)' };
const envelope = { x: [0, 1, 2], min: [1, 1.1, 1.2], max: [2.6, 1.4, 1.3], mean: [1.5, 1.3, 1.25] };

describe('toEnvelopeFigure', () => {
  it('should draw the max edge, the min edge filled up to it, then the mean line', () => {
    const figure = toEnvelopeFigure(envelope, labels);
    expect(figure.data).toEqual([
      expect.objectContaining({ name: 'Max', x: [0, 1, 2], y: [2.6, 1.4, 1.3], showlegend: false }),
      expect.objectContaining({ name: 'Min–max', y: [1, 1.1, 1.2], fill: 'tonexty' }),
      expect.objectContaining({ name: 'Mean', y: [1.5, 1.3, 1.25], mode: 'lines' }),
    ]);
    expect(figure.layout.xaxis).toMatchObject({ title: { text: 'Time (s)' } });
    expect(figure.layout.yaxis).toMatchObject({ title: { text: 'Power (W)' } });
    // A constant revision keeps the user's zoom across redraws with new data.
    expect(figure.layout.uirevision).toBe('keep');
    expect(figure.layout.shapes).toEqual([]);
  });

  it('should shade the given window across the whole plot height, labelled', () => {
    const figure = toEnvelopeFigure(envelope, labels, { start: 1.5, end: 31.5, label: 'Run window' });
    expect(figure.layout.shapes).toEqual([
      expect.objectContaining({ type: 'rect', xref: 'x', yref: 'paper', x0: 1.5, x1: 31.5, y0: 0, y1: 1 }),
    ]);
    expect(figure.layout.annotations).toEqual([expect.objectContaining({ x: 1.5, text: 'Run window' })]);
  });

  it('should draw only the mean line when every bucket is one sample', () => {
    const exact = { x: [0, 1], min: [1, 2], max: [1, 2], mean: [1, 2] };
    expect(isExactEnvelope(exact)).toBe(true);
    expect(isExactEnvelope(envelope)).toBe(false);
    expect(toEnvelopeFigure(exact, labels).data).toEqual([expect.objectContaining({ name: 'Mean', y: [1, 2] })]);
  });
});

describe('toXyLineFigure', () => {
  it('should draw one coloured line per series, leaving gaps open', () => {
    const figure = toXyLineFigure(
      [
        { name: 'srup', x: [0, 1], y: [41.6, 41] },
        { name: 'plain', x: [0, 1], y: [50, null] },
      ],
      { xLabel: 'Messages per minute', yLabel: 'Battery life (h)' },
    );
    expect(figure.data).toEqual([
      expect.objectContaining({ name: 'srup', x: [0, 1], y: [41.6, 41], line: { color: GROUP_COLOURS[0] } }),
      expect.objectContaining({ name: 'plain', y: [50, null], connectgaps: false, line: { color: GROUP_COLOURS[1] } }),
    ]);
    expect(figure.layout.xaxis).toMatchObject({ title: { text: 'Messages per minute' } });
  });

  it('should say whether any series has a value', () => {
    expect(hasXyValues([{ name: 'a', x: [0], y: [null] }])).toBe(false);
    expect(hasXyValues([{ name: 'a', x: [0], y: [1] }])).toBe(true);
  });
});

describe('xRangeFromRelayout', () => {
  it('should read a zoom given as two keys or as one array, lowest end first', () => {
    expect(xRangeFromRelayout({ 'xaxis.range[0]': 10, 'xaxis.range[1]': 20, 'yaxis.range[0]': 0 })).toEqual({
      kind: 'range',
      range: { min: 10, max: 20 },
    });
    expect(xRangeFromRelayout({ 'xaxis.range': [30, 5] })).toEqual({ kind: 'range', range: { min: 5, max: 30 } });
  });

  it('should tell a reset zoom from events that leave the x axis alone', () => {
    expect(xRangeFromRelayout({ 'xaxis.autorange': true, 'yaxis.autorange': true })).toEqual({ kind: 'autorange' });
    expect(xRangeFromRelayout({ 'yaxis.range[0]': 0, 'yaxis.range[1]': 3 })).toBeNull();
    expect(xRangeFromRelayout({ dragmode: 'pan' })).toBeNull();
  });
});
