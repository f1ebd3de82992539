export { BoxPlotChart } from './box-plot-chart';
export { CategoryLineChart } from './category-line-chart';
export { ChartPanel } from './chart-panel';
export type { CategoryChartData, CategorySeries, ChartSeries } from './figures';
export { GroupedBarChart } from './grouped-bar-chart';
export { HistogramChart } from './histogram-chart';
