import type { CategoryChartData } from '@/components/charts';
import type { ExperimentCell, ExperimentCellMetric } from '@/types/api';

/** How the figure and the table name a metric of the results endpoint. */
export const METRIC_LABELS: Record<string, string> = {
  median_ms: 'Median round trip',
  mean_ms: 'Mean round trip',
  seconds: 'Time per operation',
  mb_s: 'Throughput',
  packets_per_s: 'Packets per second',
  peak_rss_kb: 'Peak memory',
};

/**
 * A metric's name in the figure and the table: a messaging experiment's median and mean name
 * its measured quantity ("Median one-way delay", "Mean acknowledgement time (CON → ACK)").
 */
export const metricLabel = (name: string, quantity = ''): string => {
  if (quantity && name === 'median_ms') return `Median ${quantity}`;
  if (quantity && name === 'mean_ms') return `Mean ${quantity}`;
  return METRIC_LABELS[name] ?? name;
};

/** A paper's figure for each kind: the metric, then the axis and grouping preferred in order. */
const DEFAULTS: Record<string, { metric: string; x: string[]; group: string[] }> = {
  messaging: {
    metric: 'median_ms',
    x: ['network_profile', 'payload_size', 'qos', 'interval_ms', 'protocol', 'security'],
    group: ['security', 'protocol'],
  },
  cipher_bench: { metric: 'seconds', x: ['mechanism'], group: ['data_bytes'] },
  throughput: { metric: 'packets_per_s', x: ['mechanism'], group: ['data_bytes'] },
};

export type FigureChoice = { metric: string; x: string; group: string | null };

/** The parameters the cells differ in, in the order the endpoint gives them. */
export const cellAxes = (cells: readonly ExperimentCell[]): string[] => [
  ...new Set(cells.flatMap((cell) => Object.keys(cell.parameters))),
];

/** The metrics of the cells, in the endpoint's order. */
export const cellMetrics = (cells: readonly ExperimentCell[]): ExperimentCellMetric[] => {
  const seen = new Map<string, ExperimentCellMetric>();
  for (const cell of cells) for (const metric of cell.metrics) if (!seen.has(metric.name)) seen.set(metric.name, metric);
  return [...seen.values()];
};

/** The kind's default figure, as far as this experiment's axes allow. */
export const defaultChoice = (kind: string, cells: readonly ExperimentCell[]): FigureChoice => {
  const axes = cellAxes(cells);
  const metrics = cellMetrics(cells).map((m) => m.name);
  const preferred = DEFAULTS[kind] ?? { metric: metrics[0] ?? '', x: [], group: [] };
  const group = preferred.group.find((axis) => axes.includes(axis)) ?? null;
  const x =
    preferred.x.find((axis) => axes.includes(axis) && axis !== group) ?? axes.find((axis) => axis !== group) ?? group;
  return {
    metric: metrics.includes(preferred.metric) ? preferred.metric : (metrics[0] ?? ''),
    x: x ?? '',
    group: x === group ? null : group,
  };
};

const UNITS: Record<string, string> = { payload_size: ' B', data_bytes: ' B', interval_ms: ' ms' };

/** A parameter's value as the figure shows it ("1024 B", "aes-128-cbc"). */
export const describeValue = (axis: string, value: unknown): string => {
  if (value === null || value === undefined) return '—';
  const text = Array.isArray(value)
    ? value.join(', ')
    : typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : JSON.stringify(value);
  return `${text}${UNITS[axis] ?? ''}`;
};

/**
 * The cells as bars: one category per value of `x`, one series per value of `group` (and of
 * every other parameter, so two cells never share a bar), error bars from the intervals.
 */
export const resultsChartData = (cells: readonly ExperimentCell[], choice: FigureChoice): CategoryChartData => {
  const axes = cellAxes(cells);
  const rest = axes.filter((axis) => axis !== choice.x && axis !== choice.group);
  const seriesOf = (cell: ExperimentCell) =>
    [choice.group, ...rest]
      .filter((axis): axis is string => axis !== null)
      .map((axis) => describeValue(axis, cell.parameters[axis]))
      .join(' · ') || METRIC_LABELS[choice.metric] || choice.metric;
  const categories = [...new Set(cells.map((cell) => describeValue(choice.x, cell.parameters[choice.x])))];
  const names = [...new Set(cells.map(seriesOf))];
  const series = names.map((name) => {
    const values: (number | null)[] = categories.map(() => null);
    const errors: (number | null)[] = categories.map(() => null);
    const errorsMinus: (number | null)[] = categories.map(() => null);
    for (const cell of cells) {
      if (seriesOf(cell) !== name) continue;
      const index = categories.indexOf(describeValue(choice.x, cell.parameters[choice.x]));
      const metric = cell.metrics.find((m) => m.name === choice.metric);
      if (!metric || metric.value === null) continue;
      values[index] = metric.value;
      const [low, high] = metric.ci ?? [];
      if (low !== undefined && high !== undefined) {
        errors[index] = high - metric.value;
        errorsMinus[index] = metric.value - low;
      }
    }
    // Grouped by mechanism, a series takes the mechanism's colour of the whole app.
    const first = cells.find((cell) => seriesOf(cell) === name);
    const mechanism = choice.group === 'security' ? first?.parameters.security : undefined;
    return { name, values, errors, errorsMinus, ...(typeof mechanism === 'string' ? { colourKey: mechanism } : {}) };
  });
  return { categories, series };
};
