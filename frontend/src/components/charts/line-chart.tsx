import { useMemo } from 'react';

import { LazyPlotlyFigure } from './lazy-plotly-figure';
import { hasXyValues, toXyLineFigure, type XyAxisLabels, type XySeries } from './xy-figures';

type LineChartProps = XyAxisLabels & { series: readonly XySeries[] };

/** One line per series over a numeric x axis (e.g. battery life against message rate). */
export const LineChart = ({ series, xLabel, yLabel }: LineChartProps) => {
  const figure = useMemo(() => toXyLineFigure(series, { xLabel, yLabel }), [series, xLabel, yLabel]);
  if (!hasXyValues(series)) return <p className="muted">No values to plot.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} />;
};
