import type { Data, Layout } from 'plotly.js-dist-min';

import { baseLayout, GROUP_COLOURS, type Figure, type Range } from './figures';

/**
 * Figures over a numeric x axis (time in seconds, messages per minute). Like ./figures,
 * pure functions from plain arrays to Plotly's vocabulary.
 */

/** Bucketed samples: at each x, the smallest, largest and mean value of the bucket. */
export type EnvelopeData = {
  x: readonly number[];
  min: readonly number[];
  max: readonly number[];
  mean: readonly number[];
};

/** An x interval to shade behind the data (e.g. a run's measuring window), with its legend text. */
export type ShadedWindow = { start: number; end: number; label: string };

export type XyAxisLabels = { xLabel: string; yLabel: string };

export const ENVELOPE_COLOUR = '#1f5fbf';
const ENVELOPE_FILL = 'rgba(31, 95, 191, 0.25)';
const SHADE_FILL = 'rgba(255, 170, 0, 0.18)';

/**
 * Same `uirevision` on every redraw: Plotly then keeps the user's zoom when new data comes
 * in (the data of the zoomed window, fetched after the zoom).
 */
const KEEP_ZOOM = 'keep';

const numericAxes = ({ xLabel, yLabel }: XyAxisLabels): Partial<Layout> => ({
  xaxis: { title: { text: xLabel }, zeroline: false },
  yaxis: { title: { text: yLabel }, zeroline: false, exponentformat: 'none' },
});

/** True when every bucket holds one sample: the band collapses onto the mean line. */
export const isExactEnvelope = (data: EnvelopeData): boolean =>
  data.min.every((value, i) => value === data.max[i]);

/**
 * The min–max band as a filled area (upper edge first, the lower edge filled up to it) with
 * the mean as a line on top, and an optional shaded window. Spikes narrower than a bucket
 * stay visible as the band's edge.
 */
export const toEnvelopeFigure = (
  data: EnvelopeData,
  labels: XyAxisLabels,
  shade: ShadedWindow | null = null,
): Figure => {
  const x = [...data.x];
  const band: Data[] = isExactEnvelope(data)
    ? []
    : [
        {
          type: 'scatter',
          mode: 'lines',
          name: 'Max',
          x,
          y: [...data.max],
          line: { width: 0, color: ENVELOPE_COLOUR },
          showlegend: false,
          hoverinfo: 'skip',
        },
        {
          type: 'scatter',
          mode: 'lines',
          name: 'Min–max',
          x,
          y: [...data.min],
          fill: 'tonexty',
          fillcolor: ENVELOPE_FILL,
          line: { width: 0, color: ENVELOPE_COLOUR },
          hoverinfo: 'skip',
        },
      ];
  const mean: Data = {
    type: 'scatter',
    mode: 'lines',
    name: 'Mean',
    x,
    y: [...data.mean],
    line: { width: 1.5, color: ENVELOPE_COLOUR },
  };
  return {
    data: [...band, mean],
    layout: {
      ...baseLayout(),
      ...numericAxes(labels),
      hovermode: 'x',
      uirevision: KEEP_ZOOM,
      shapes: shade
        ? [
            {
              type: 'rect',
              xref: 'x',
              yref: 'paper',
              x0: shade.start,
              x1: shade.end,
              y0: 0,
              y1: 1,
              fillcolor: SHADE_FILL,
              line: { width: 0 },
              layer: 'below',
            },
          ]
        : [],
      annotations: shade
        ? [
            {
              xref: 'x',
              yref: 'paper',
              x: shade.start,
              y: 1,
              xanchor: 'left',
              yanchor: 'bottom',
              text: shade.label,
              showarrow: false,
            },
          ]
        : [],
    },
  };
};

/** One line per series over a numeric x axis; null y values leave gaps. */
export type XySeries = { name: string; x: readonly number[]; y: readonly (number | null)[] };

export const hasXyValues = (series: readonly XySeries[]): boolean =>
  series.some((s) => s.y.some((value) => value !== null && Number.isFinite(value)));

export const toXyLineFigure = (series: readonly XySeries[], labels: XyAxisLabels): Figure => ({
  data: series.map((s, i) => ({
    type: 'scatter',
    mode: 'lines',
    name: s.name,
    x: [...s.x],
    y: [...s.y],
    connectgaps: false,
    line: { color: GROUP_COLOURS[i % GROUP_COLOURS.length] },
  })),
  layout: { ...baseLayout(), ...numericAxes(labels), hovermode: 'x unified' },
});

/** A change of the x axis a user made by zooming, panning or double-clicking. */
export type XRangeChange = { kind: 'range'; range: Range } | { kind: 'autorange' };

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * The x-axis change in a `plotly_relayout` event, or null when the x axis did not change
 * (a y-only zoom, a legend click). Plotly reports ranges either as `xaxis.range[0]` and
 * `xaxis.range[1]` or as one `xaxis.range` array, depending on the gesture.
 */
export const xRangeFromRelayout = (event: Readonly<Record<string, unknown>>): XRangeChange | null => {
  if (event['xaxis.autorange'] === true) return { kind: 'autorange' };
  const pair = event['xaxis.range'];
  const [start, end] = Array.isArray(pair) ? (pair as unknown[]) : [event['xaxis.range[0]'], event['xaxis.range[1]']];
  if (!finite(start) || !finite(end)) return null;
  return { kind: 'range', range: { min: Math.min(start, end), max: Math.max(start, end) } };
};
