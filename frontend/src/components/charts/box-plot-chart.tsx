import { useMemo } from 'react';

import { hasValues, toBoxFigure, type ChartSeries } from './figures';
import { LazyPlotlyFigure } from './lazy-plotly-figure';

type BoxPlotChartProps = {
  series: readonly ChartSeries[];
  /** Axis title for the measured value, e.g. "Round-trip time (ms)". */
  valueLabel: string;
};

/** One box per series, with the mean marked and outliers drawn. */
export const BoxPlotChart = ({ series, valueLabel }: BoxPlotChartProps) => {
  const figure = useMemo(() => toBoxFigure(series, valueLabel), [series, valueLabel]);
  if (!hasValues(series)) return <p className="muted">No samples to plot.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} />;
};
