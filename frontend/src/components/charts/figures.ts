import type { Data, Layout } from 'plotly.js-dist-min';

/**
 * Pure functions from chart data to a Plotly figure. Features hand in series of numbers;
 * only this folder knows Plotly's trace and layout vocabulary.
 */

export type ChartSeries = { name: string; values: readonly number[] };

export type Figure = { data: Data[]; layout: Partial<Layout> };

/** About this many bins across the overall range: enough shape without per-bin noise. */
export const HISTOGRAM_TARGET_BINS = 40;

const CHART_HEIGHT_PX = 380;

const baseLayout = (): Partial<Layout> => ({
  autosize: true,
  height: CHART_HEIGHT_PX,
  margin: { l: 60, r: 20, t: 20, b: 50 },
  legend: { orientation: 'h', y: -0.2 },
  paper_bgcolor: 'rgba(0,0,0,0)',
  plot_bgcolor: 'rgba(0,0,0,0)',
});

export type Range = { min: number; max: number };

/**
 * Min and max over all series, or null when there are no finite values.
 * A loop, not Math.min(...values): spreading 100k samples overflows the call stack.
 */
export const valueRange = (series: readonly ChartSeries[]): Range | null => {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const { values } of series) {
    for (const value of values) {
      if (!Number.isFinite(value)) continue;
      if (value < min) min = value;
      if (value > max) max = value;
    }
  }
  return min <= max ? { min, max } : null;
};

/**
 * One set of bins shared by every trace. Plotly bins each trace on its own by
 * default, and overlaid histograms with different bin widths are misleading.
 */
export const sharedBins = (
  series: readonly ChartSeries[],
  targetBins = HISTOGRAM_TARGET_BINS,
): { start: number; end: number; size: number } | null => {
  const range = valueRange(series);
  if (!range) return null;
  const span = range.max - range.min;
  // All samples equal: one bin of width 1 centred on the value.
  const size = span > 0 ? span / targetBins : 1;
  const start = span > 0 ? range.min : range.min - size / 2;
  // One extra bin so the maximum falls inside the last bin, not on its open edge.
  return { start, end: range.max + size, size };
};

export const hasValues = (series: readonly ChartSeries[]): boolean =>
  series.some((s) => s.values.length > 0);

export const toHistogramFigure = (series: readonly ChartSeries[], valueLabel: string): Figure => {
  const bins = sharedBins(series);
  return {
    data: series.map((s) => ({
      type: 'histogram',
      name: s.name,
      x: [...s.values],
      opacity: 0.6,
      ...(bins ? { xbins: bins, autobinx: false } : {}),
    })),
    layout: {
      ...baseLayout(),
      barmode: 'overlay',
      xaxis: { title: { text: valueLabel } },
      yaxis: { title: { text: 'Count' } },
    },
  };
};

export const toBoxFigure = (series: readonly ChartSeries[], valueLabel: string): Figure => ({
  data: series.map((s) => ({
    type: 'box',
    name: s.name,
    y: [...s.values],
    boxpoints: 'outliers',
    boxmean: true,
  })),
  layout: {
    ...baseLayout(),
    showlegend: false,
    yaxis: { title: { text: valueLabel }, zeroline: false },
  },
});
