import { useMemo } from 'react';

import { toBoxSummaryFigure, type BoxSummary } from './distribution-figures';
import { LazyPlotlyFigure } from './lazy-plotly-figure';

type BoxSummaryChartProps = {
  boxes: readonly BoxSummary[];
  /** Axis title for the measured value, e.g. "Round-trip time (ms)". */
  valueLabel: string;
};

/** One box per series from its statistics (computed by the server), with sampled outliers. */
export const BoxSummaryChart = ({ boxes, valueLabel }: BoxSummaryChartProps) => {
  const figure = useMemo(() => toBoxSummaryFigure(boxes, valueLabel), [boxes, valueLabel]);
  if (boxes.length === 0) return <p className="muted">No samples to plot.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} />;
};
