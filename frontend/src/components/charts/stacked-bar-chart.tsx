import { useMemo } from 'react';

import {
  hasCategoryValues,
  toStackedBarFigure,
  type CategoryChartData,
  type CategoryChartOptions,
} from './figures';
import { LazyPlotlyFigure } from './lazy-plotly-figure';

type StackedBarChartProps = Omit<CategoryChartOptions, 'logScale'> & { data: CategoryChartData };

/**
 * One bar per category, its series stacked (parts of a whole). No log scale: stacked parts on
 * a log axis do not add up visually.
 */
export const StackedBarChart = ({ data, categoryLabel, valueLabel }: StackedBarChartProps) => {
  const figure = useMemo(
    () => toStackedBarFigure(data, { categoryLabel, valueLabel }),
    [data, categoryLabel, valueLabel],
  );
  if (!hasCategoryValues(data)) return <p className="muted">No results to plot.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} />;
};
