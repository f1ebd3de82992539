import { useMemo } from 'react';

import {
  hasCategoryValues,
  toCategoryLineFigure,
  type CategoryChartData,
  type CategoryChartOptions,
} from './figures';
import { LazyPlotlyFigure } from './lazy-plotly-figure';

type CategoryLineChartProps = CategoryChartOptions & { data: CategoryChartData };

/** One line per series across ordered categories (e.g. data sizes, smallest first). */
export const CategoryLineChart = ({ data, categoryLabel, valueLabel, logScale }: CategoryLineChartProps) => {
  const figure = useMemo(
    () => toCategoryLineFigure(data, { categoryLabel, valueLabel, logScale }),
    [data, categoryLabel, valueLabel, logScale],
  );
  if (!hasCategoryValues(data)) return <p className="muted">No results to plot.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} />;
};
