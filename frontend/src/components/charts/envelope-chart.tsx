import { useCallback, useMemo } from 'react';

import type { Range } from './figures';
import { LazyPlotlyFigure } from './lazy-plotly-figure';
import {
  toEnvelopeFigure,
  xRangeFromRelayout,
  type EnvelopeData,
  type ShadedWindow,
  type XyAxisLabels,
} from './xy-figures';

type EnvelopeChartProps = XyAxisLabels & {
  data: EnvelopeData;
  /** An x interval to shade (e.g. the run window), or null. */
  shade?: ShadedWindow | null;
  /**
   * Called when the user zooms or pans the x axis: the visible range, or null once they
   * reset the zoom (double click). Lets the caller fetch finer data for what is visible.
   */
  onXRangeChange?: (range: Range | null) => void;
};

/** A min–max band with its mean line over a numeric x axis, and an optional shaded window. */
export const EnvelopeChart = ({ data, xLabel, yLabel, shade = null, onXRangeChange }: EnvelopeChartProps) => {
  const figure = useMemo(() => toEnvelopeFigure(data, { xLabel, yLabel }, shade), [data, xLabel, yLabel, shade]);
  const onRelayout = useCallback(
    (event: Readonly<Record<string, unknown>>) => {
      const change = xRangeFromRelayout(event);
      if (!change || !onXRangeChange) return;
      onXRangeChange(change.kind === 'range' ? change.range : null);
    },
    [onXRangeChange],
  );
  if (data.x.length === 0) return <p className="muted">No samples to plot.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} onRelayout={onRelayout} />;
};
