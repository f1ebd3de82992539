import { useMemo } from 'react';

import { hasValues, toHistogramFigure, type ChartSeries } from './figures';
import { LazyPlotlyFigure } from './lazy-plotly-figure';

type HistogramChartProps = {
  series: readonly ChartSeries[];
  /** Axis title for the measured value, e.g. "Round-trip time (ms)". */
  valueLabel: string;
};

/** Overlaid histograms, one per series, on shared bins. */
export const HistogramChart = ({ series, valueLabel }: HistogramChartProps) => {
  const figure = useMemo(() => toHistogramFigure(series, valueLabel), [series, valueLabel]);
  if (!hasValues(series)) return <p className="muted">No samples to plot.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} />;
};
