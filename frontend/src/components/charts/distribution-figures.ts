import type { Data } from 'plotly.js-dist-min';

import { baseLayout, GROUP_COLOURS, type Figure } from './figures';

/**
 * Figures of distributions the server has already summarised (docs/results.md, "Plot data"):
 * histogram counts over bin edges, a density at grid points, box statistics. Unlike
 * ./figures, no raw samples: a million-record run arrives as a few kB per device.
 */

/** Histogram counts of one series: `counts[i]` fell in [edges[i], edges[i+1]). */
/** `colour`: the series' own (e.g. its mechanism's, colours.ts); default: by position. */
export type BinnedSeries = { name: string; edges: readonly number[]; counts: readonly number[]; colour?: string };

/** A density (1/unit) at `grid`; null when there were too few distinct values for one. */
export type DensitySeries = {
  name: string;
  grid: readonly number[];
  density: readonly number[] | null;
  colour?: string;
};

/** Tukey box statistics of one series, with a sample of its outliers. */
export type BoxSummary = {
  name: string;
  colour?: string;
  q1: number;
  median: number;
  q3: number;
  whiskerLow: number;
  whiskerHigh: number;
  /** Drawn as a dashed line in the box when given. */
  mean?: number | null;
  outlierSample: readonly number[];
};

export type HistogramScale = 'count' | 'density';

/** Half the horizontal room of a violin, in category widths: neighbours never touch. */
const VIOLIN_HALF_WIDTH = 0.45;

const colourOf = (index: number): string => GROUP_COLOURS[index % GROUP_COLOURS.length] ?? GROUP_COLOURS[0];

export const hasBinnedValues = (series: readonly BinnedSeries[]): boolean =>
  series.some((s) => s.counts.some((count) => count > 0));

export const hasDensities = (series: readonly DensitySeries[]): boolean =>
  series.some((s) => s.density !== null && s.density.length > 0);

/**
 * Bars at each bin's centre, as wide as the bin, one overlaid trace per series. With
 * `density` each series is scaled to unit area (count / (total · width)), so series of
 * different sizes (runs of 100 and of 100,000 messages) can be compared by shape.
 */
export const toBinnedHistogramFigure = (
  series: readonly BinnedSeries[],
  valueLabel: string,
  scale: HistogramScale = 'count',
): Figure => ({
  data: series.map((s, index) => {
    const widths = s.counts.map((_, i) => (s.edges[i + 1] ?? 0) - (s.edges[i] ?? 0));
    const total = s.counts.reduce((sum, count) => sum + count, 0);
    return {
      type: 'bar',
      name: s.name,
      x: s.counts.map((_, i) => (s.edges[i] ?? 0) + (widths[i] ?? 0) / 2),
      width: widths,
      y: s.counts.map((count, i) =>
        scale === 'density' ? (total > 0 && (widths[i] ?? 0) > 0 ? count / (total * (widths[i] ?? 1)) : 0) : count,
      ),
      marker: { color: s.colour ?? colourOf(index) },
      opacity: 0.6,
    } satisfies Data;
  }),
  layout: {
    ...baseLayout(),
    barmode: 'overlay',
    bargap: 0,
    xaxis: { title: { text: valueLabel } },
    yaxis: { title: { text: scale === 'density' ? 'Density (1/ms)' : 'Count' } },
  },
});

/**
 * Violins drawn from a precomputed density: Plotly's own violin trace estimates the density
 * from raw samples, which the page never has. Each series is a closed outline around its
 * category position, all scaled by the largest density so their widths compare.
 */
export const toViolinFigure = (series: readonly DensitySeries[], valueLabel: string): Figure => {
  let peak = 0;
  for (const s of series) for (const value of s.density ?? []) if (value > peak) peak = value;
  const scale = peak > 0 ? VIOLIN_HALF_WIDTH / peak : 0;
  return {
    data: series.map((s, index) => {
      const density = s.density ?? [];
      const grid = s.grid.slice(0, density.length);
      return {
        type: 'scatter',
        mode: 'lines',
        name: s.name,
        x: [...density.map((d) => index + d * scale), ...density.map((d) => index - d * scale).reverse()],
        y: [...grid, ...[...grid].reverse()],
        fill: 'toself',
        line: { color: s.colour ?? colourOf(index), width: 1 },
        hoveron: 'points',
      } satisfies Data;
    }),
    layout: {
      ...baseLayout(),
      showlegend: false,
      xaxis: {
        tickmode: 'array',
        tickvals: series.map((_, index) => index),
        ticktext: series.map((s) => s.name),
        zeroline: false,
        showgrid: false,
      },
      yaxis: { title: { text: valueLabel }, zeroline: false },
    },
  };
};

/**
 * Boxes from their statistics (Plotly's q1/median/q3 signature), whiskers where the server
 * put them, and each box's outlier sample as points beside it: Plotly draws outliers only
 * from raw samples.
 */
export const toBoxSummaryFigure = (boxes: readonly BoxSummary[], valueLabel: string): Figure => {
  const outliers = boxes.flatMap((box) => box.outlierSample.map((value) => ({ name: box.name, value })));
  return {
    data: [
      ...boxes.map(
        (box, index) =>
          ({
            type: 'box',
            name: box.name,
            x: [box.name],
            q1: [box.q1],
            median: [box.median],
            q3: [box.q3],
            lowerfence: [box.whiskerLow],
            upperfence: [box.whiskerHigh],
            ...(box.mean === null || box.mean === undefined ? {} : { mean: [box.mean] }),
            marker: { color: box.colour ?? colourOf(index) },
          }) satisfies Data,
      ),
      ...(outliers.length > 0
        ? [
            {
              type: 'scatter',
              mode: 'markers',
              name: 'Outliers (sample)',
              x: outliers.map((o) => o.name),
              y: outliers.map((o) => o.value),
              marker: { color: '#555', size: 4, symbol: 'circle-open' },
            } satisfies Data,
          ]
        : []),
    ],
    layout: {
      ...baseLayout(),
      showlegend: false,
      xaxis: { type: 'category' },
      yaxis: { title: { text: valueLabel }, zeroline: false },
    },
  };
};
