export { BoxPlotChart } from './box-plot-chart';
export { CategoryLineChart } from './category-line-chart';
export { ChartPanel } from './chart-panel';
export { EnvelopeChart } from './envelope-chart';
export type { CategoryChartData, CategorySeries, ChartSeries, Range } from './figures';
export { GroupedBarChart } from './grouped-bar-chart';
export { HistogramChart } from './histogram-chart';
export { LineChart } from './line-chart';
export type { EnvelopeData, ShadedWindow, XySeries } from './xy-figures';
