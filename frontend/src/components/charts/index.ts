export { BoxPlotChart } from './box-plot-chart';
export { ChartPanel } from './chart-panel';
export type { ChartSeries } from './figures';
export { HistogramChart } from './histogram-chart';
