import { useMemo } from 'react';

import { hasDensities, toViolinFigure, type DensitySeries } from './distribution-figures';
import { LazyPlotlyFigure } from './lazy-plotly-figure';

type ViolinChartProps = {
  series: readonly DensitySeries[];
  /** Axis title for the measured value, e.g. "Round-trip time (ms)". */
  valueLabel: string;
};

/** One violin per series, drawn from a density computed elsewhere (by the server). */
export const ViolinChart = ({ series, valueLabel }: ViolinChartProps) => {
  const figure = useMemo(() => toViolinFigure(series, valueLabel), [series, valueLabel]);
  if (!hasDensities(series)) return <p className="muted">Too few distinct values for a density.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} />;
};
