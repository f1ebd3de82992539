import { useMemo } from 'react';

import {
  hasCategoryValues,
  toGroupedBarFigure,
  type CategoryChartData,
  type CategoryChartOptions,
} from './figures';
import { LazyPlotlyFigure } from './lazy-plotly-figure';

type GroupedBarChartProps = CategoryChartOptions & {
  data: CategoryChartData;
  /** What its PNG and SVG downloads are named after; default: the app's name. */
  imageName?: string;
};

/** Bars grouped by category, one colour per series, with ± error bars when the series has them. */
export const GroupedBarChart = ({ data, categoryLabel, valueLabel, logScale, title, imageName }: GroupedBarChartProps) => {
  const figure = useMemo(
    () => toGroupedBarFigure(data, { categoryLabel, valueLabel, logScale, title }),
    [data, categoryLabel, valueLabel, logScale, title],
  );
  if (!hasCategoryValues(data)) return <p className="muted">No results to plot.</p>;
  return <LazyPlotlyFigure data={figure.data} layout={figure.layout} imageName={imageName} />;
};
