import { useMemo } from 'react';

import { hasBinnedValues, toBinnedHistogramFigure, type BinnedSeries, type HistogramScale } from './distribution-figures';
import { LazyPlotlyFigure } from './lazy-plotly-figure';

type BinnedHistogramChartProps = {
  series: readonly BinnedSeries[];
  /** Axis title for the measured value, e.g. "Round-trip time (ms)". */
  valueLabel: string;
  /** Counts as they are, or each series scaled to unit area (to compare shapes). */
  scale?: HistogramScale;
};

/** Overlaid histograms from counts already binned (by the server). */
export const BinnedHistogramChart = ({ series, valueLabel, scale = 'count' }: BinnedHistogramChartProps) => {
  const figure = useMemo(() => toBinnedHistogramFigure(series, valueLabel, scale), [series, valueLabel, scale]);
  if (!hasBinnedValues(series)) return <p className="muted">No samples to plot.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} />;
};
