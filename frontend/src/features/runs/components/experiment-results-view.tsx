import { useMemo, useState } from 'react';

import { ChartPanel, GroupedBarChart } from '@/components/charts';
import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { ScrollTable } from '@/components/ui/scroll-table';
import type { ExperimentCell, ExperimentResults } from '@/types/api';

import { experimentResultsTableHref, useExperimentResults } from '../api/get-experiment-results';
import { useResultsSource } from '../api/results-api';

import {
  cellAxes,
  cellMetrics,
  defaultChoice,
  metricLabel as metricLabelOf,
  resultsChartData,
  type FigureChoice,
} from './experiment-results-figure';

const LEVEL_WORDS: Record<string, string> = {
  runs: 'over runs',
  messages: 'over messages (one run)',
  repetitions: 'over repetitions (one run)',
};

const number = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : value.toPrecision(4).replace(/\.?0+(e|$)/, '$1');


type Props = { experimentId: string; title: string };

/** An experiment's results as the papers show them: one figure over its cells, the table behind it. */
export const ExperimentResultsView = ({ experimentId, title }: Props) => {
  const results = useExperimentResults(experimentId);
  if (results.isPending) return <Loading />;
  if (results.isError) return <ErrorAlert error={results.error} />;
  if (!results.data.cells.length) return <p className="muted">No completed runs yet: the results appear as runs complete.</p>;
  return <ResultsBody results={results.data} experimentId={experimentId} title={title} />;
};

const ResultsBody = ({ results, experimentId, title }: { results: ExperimentResults } & Props) => {
  const { shared } = useResultsSource();
  const metricLabel = (name: string) => metricLabelOf(name, results.quantity);
  const [choice, setChoice] = useState<FigureChoice>(() => defaultChoice(results.kind, results.cells));
  const axes = cellAxes(results.cells);
  const metrics = cellMetrics(results.cells);
  const unit = metrics.find((m) => m.name === choice.metric)?.unit ?? '';
  const data = useMemo(() => resultsChartData(results.cells, choice), [results.cells, choice]);
  const figureTitle = `${title}: ${metricLabel(choice.metric).toLowerCase()} per ${choice.x}${
    choice.group ? ` by ${choice.group}` : ''
  } (${Math.round(results.confidence * 100)} % intervals)`;
  const controls = (
    <div className="chart-controls">
      <label>
        Metric{' '}
        <select value={choice.metric} onChange={(e) => setChoice({ ...choice, metric: e.target.value })}>
          {metrics.map((m) => (
            <option key={m.name} value={m.name}>
              {metricLabel(m.name)} ({m.unit})
            </option>
          ))}
        </select>
      </label>{' '}
      <label>
        Against{' '}
        <select value={choice.x} onChange={(e) => setChoice({ ...choice, x: e.target.value })}>
          {axes.map((axis) => (
            <option key={axis} value={axis}>
              {axis}
            </option>
          ))}
        </select>
      </label>{' '}
      <label>
        Grouped by{' '}
        <select
          value={choice.group ?? ''}
          onChange={(e) => setChoice({ ...choice, group: e.target.value || null })}
        >
          <option value="">(nothing)</option>
          {axes
            .filter((axis) => axis !== choice.x)
            .map((axis) => (
              <option key={axis} value={axis}>
                {axis}
              </option>
            ))}
        </select>
      </label>
    </div>
  );
  return (
    <>
      <ChartPanel label="Results figure" controls={controls}>
        <GroupedBarChart
          data={data}
          title={figureTitle}
          imageName={figureTitle}
          categoryLabel={choice.x}
          valueLabel={`${metricLabel(choice.metric)} (${unit})`}
        />
      </ChartPanel>
      <section className="panel" aria-label="Results table">
        <h2 className="panel-title">Table</h2>
        {!shared && (
          <p>
            Download the table:{' '}
            <a href={experimentResultsTableHref(experimentId, 'csv')} download>
              CSV
            </a>{' '}
            ·{' '}
            <a href={experimentResultsTableHref(experimentId, 'parquet')} download>
              Parquet
            </a>
          </p>
        )}
        <ResultsTable cells={results.cells} metricNames={metrics.map((m) => m.name)} quantity={results.quantity} />
      </section>
      <section className="panel" aria-label="Methods">
        <h2 className="panel-title">Methods</h2>
        <p>{results.methods}</p>
      </section>
    </>
  );
};

type ResultsTableProps = { cells: readonly ExperimentCell[]; metricNames: string[]; quantity: string };

const ResultsTable = ({ cells, metricNames, quantity }: ResultsTableProps) => (
  <ScrollTable label="Cells of this experiment">
    <table className="table" aria-label="Cells of this experiment">
      <thead>
        <tr>
          <th scope="col">Cell</th>
          <th scope="col">Runs</th>
          {metricNames.map((name) => (
            <th scope="col" key={name}>
              {metricLabelOf(name, quantity)}
            </th>
          ))}
          <th scope="col">Interval</th>
        </tr>
      </thead>
      <tbody>
        {cells.map((cell) => (
          <tr key={cell.key}>
            <td>{cell.label}</td>
            <td>{cell.runs.length}</td>
            {metricNames.map((name) => {
              const metric = cell.metrics.find((m) => m.name === name);
              return (
                <td key={name}>
                  {number(metric?.value)} {metric?.unit}
                  {metric?.ci ? ` [${number(metric.ci[0])}, ${number(metric.ci[1])}]` : ''}
                </td>
              );
            })}
            <td>
              {cell.interval_level ? (LEVEL_WORDS[cell.interval_level] ?? cell.interval_level) : '—'}
              {cell.ci_clipped ? (
                <span title="The interval reached below 0 (few runs, a noisy host) and was clipped there: a delay cannot be negative.">
                  {' '}
                  (clipped at 0)
                </span>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    </ScrollTable>
);
