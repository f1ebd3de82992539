import type { Data, Layout } from 'plotly.js-dist-min';

import { colourOf, PALETTE } from './colours';

/**
 * Pure functions from chart data to a Plotly figure. Features hand in series of numbers;
 * only this folder knows Plotly's trace and layout vocabulary.
 */

export type Figure = { data: Data[]; layout: Partial<Layout> };

const CHART_HEIGHT_PX = 380;

export const baseLayout = (): Partial<Layout> => ({
  autosize: true,
  height: CHART_HEIGHT_PX,
  margin: { l: 60, r: 20, t: 20, b: 50 },
  legend: { orientation: 'h', y: -0.2 },
  paper_bgcolor: 'rgba(0,0,0,0)',
  plot_bgcolor: 'rgba(0,0,0,0)',
});

export type Range = { min: number; max: number };

/**
 * Values over named categories (mechanisms, data sizes): one series per bar group or line,
 * its values (and optional ± errors) aligned with `categories`, null where it has none.
 */
export type CategorySeries = {
  name: string;
  values: readonly (number | null)[];
  errors?: readonly (number | null)[];
  /** With `errors` as the upper distances: the lower ones, for an interval that is not symmetric. */
  errorsMinus?: readonly (number | null)[];
  /**
   * Series of one group (e.g. a mechanism's encrypt and decrypt lines) share a colour and
   * differ by line style. Lines only; without it every series gets its own colour.
   */
  group?: string;
  /**
   * A size part's or mechanism's stable key ("payload", "aes-128-cbc"): the series gets that
   * key's one colour in every chart (./colours). Without it, colours go by position.
   */
  colourKey?: string;
};

export type CategoryChartData = { categories: readonly string[]; series: readonly CategorySeries[] };

export type CategoryChartOptions = {
  /** Axis titles, e.g. "Mechanism" and "Mean time (µs)". */
  categoryLabel: string;
  valueLabel: string;
  /** Logarithmic value axis, for values spanning orders of magnitude. */
  logScale?: boolean;
  /** Drawn above the plot, so a PNG or SVG download carries it. */
  title?: string;
};

export const hasCategoryValues = (data: CategoryChartData): boolean =>
  data.series.some((s) => s.values.some((value) => value !== null && Number.isFinite(value)));

// Beyond this many decades, 1-2-5 ticks crowd: label the decades only.
const MAX_DECADES_FOR_1_2_5_TICKS = 2;

/**
 * Ticks of a logarithmic value axis that stay readable: 1, 2, 5, 10, 20, 50… over a short
 * range, one tick per decade (10, 100, 1,000…) over a longer one, never Plotly's crowded
 * 2-3-4-…-9 labels or SI suffixes ("100µ" reads as microseconds on a time axis).
 */
export const logAxisTicks = (values: readonly (number | null)[]) => {
  const positive = values.filter((v): v is number => v !== null && Number.isFinite(v) && v > 0);
  const decades =
    positive.length > 0 ? Math.log10(Math.max(...positive)) - Math.log10(Math.min(...positive)) : 0;
  return {
    dtick: decades > MAX_DECADES_FOR_1_2_5_TICKS ? 1 : 'D2',
    exponentformat: 'none' as const,
    separatethousands: true,
  };
};

// Category labels can be long ("RSA-2048 PKCS#1 v1.5 (SHA-256)"): slant them and let Plotly
// grow the bottom margin; the legend goes on top, out of their way.
const categoryLayout = (
  { categoryLabel, valueLabel, logScale = false, title }: CategoryChartOptions,
  data?: CategoryChartData,
) => ({
  ...baseLayout(),
  ...(title ? { title: { text: title, font: { size: 14 } } } : {}),
  margin: { l: 70, r: 20, t: title ? 80 : 30, b: 40 },
  legend: { orientation: 'h' as const, x: 0, y: 1.02, yanchor: 'bottom' as const },
  xaxis: {
    title: { text: categoryLabel },
    // Never let Plotly read "16" or "1024" as numbers and space them on a linear axis.
    type: 'category' as const,
    tickangle: -30,
    automargin: true,
  },
  yaxis: {
    title: { text: valueLabel },
    type: logScale ? ('log' as const) : ('linear' as const),
    // Plain numbers: SI ticks such as "100µ" read as microseconds on a time or MB/s axis.
    exponentformat: 'none' as const,
    separatethousands: true,
    ...(logScale && data ? logAxisTicks(data.series.flatMap((s) => s.values)) : {}),
  },
});

// Colours by position, for series without a key (./colours has the keyed ones).
export const GROUP_COLOURS = PALETTE;
// First series of a group solid, the next ones dotted, dashed, ...
const GROUP_DASHES = ['solid', 'dot', 'dash', 'dashdot', 'longdash'] as const;

type GroupStyle = { color: string; dash: (typeof GROUP_DASHES)[number] };

/** Colour (one per group, in order of appearance) and dash of each series; null when ungrouped. */
export const groupStyles = (series: readonly CategorySeries[]): (GroupStyle | null)[] => {
  const groupIndex = new Map<string, number>();
  const seen = new Map<string, number>();
  return series.map(({ group, colourKey }) => {
    if (group === undefined) return colourKey === undefined ? null : { color: colourOf(colourKey), dash: 'solid' };
    const index = groupIndex.get(group) ?? groupIndex.size;
    groupIndex.set(group, index);
    const member = seen.get(group) ?? 0;
    seen.set(group, member + 1);
    return {
      color: colourKey === undefined ? (GROUP_COLOURS[index % GROUP_COLOURS.length] ?? GROUP_COLOURS[0]) : colourOf(colourKey),
      dash: GROUP_DASHES[member % GROUP_DASHES.length] ?? 'solid',
    };
  });
};

const barTraces = (data: CategoryChartData, { errorBars }: { errorBars: boolean }): Data[] =>
  data.series.map((s) => ({
    type: 'bar',
    name: s.name,
    x: [...data.categories],
    y: [...s.values],
    ...(s.colourKey === undefined ? {} : { marker: { color: colourOf(s.colourKey) } }),
    ...(errorBars && s.errors
      ? {
          error_y: {
            type: 'data',
            array: [...s.errors],
            ...(s.errorsMinus ? { symmetric: false, arrayminus: [...s.errorsMinus] } : {}),
            visible: true,
          },
        }
      : {}),
  }));

/** Side-by-side bars per category, one colour per series, with ± error bars when given. */
export const toGroupedBarFigure = (data: CategoryChartData, options: CategoryChartOptions): Figure => ({
  data: barTraces(data, { errorBars: true }),
  layout: { ...categoryLayout(options, data), barmode: 'group' },
});

/**
 * One bar per category made of its series stacked, the first series at the bottom (the parts
 * of a whole, e.g. a message's header, payload and tag bytes). Error bars make no sense on a
 * part of a stack, so none are drawn. Plotly's default palette repeats after 10 colours; a
 * stack of more parts would show two parts alike, so the longer Dark24 palette is used.
 */
export const toStackedBarFigure = (data: CategoryChartData, options: CategoryChartOptions): Figure => ({
  data: barTraces(data, { errorBars: false }),
  layout: { ...categoryLayout(options), barmode: 'stack', colorway: [...GROUP_COLOURS] },
});

/** One line (with markers) per series across ordered categories; gaps stay gaps. */
export const toCategoryLineFigure = (data: CategoryChartData, options: CategoryChartOptions): Figure => {
  const styles = groupStyles(data.series);
  return {
    data: data.series.map((s, i) => {
      const style = styles[i];
      return {
        type: 'scatter',
        mode: 'lines+markers',
        name: s.name,
        x: [...data.categories],
        y: [...s.values],
        connectgaps: false,
        ...(style ? { line: { color: style.color, dash: style.dash }, marker: { color: style.color } } : {}),
      };
    }),
    layout: categoryLayout(options, data),
  };
};
