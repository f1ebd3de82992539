import { useMemo, useState } from 'react';
import { Link } from 'react-router';

import { BinnedHistogramChart, ChartPanel, ViolinChart } from '@/components/charts';
import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDecimal, MISSING } from '@/lib/format';
import type { ComparedRun, PairComparison, RoundTripStatistics, RunComparison } from '@/types/api';

import { COMPARE_RUNS_MIN, useComparison } from '../api/get-comparison';
import { DISTRIBUTION_BINS, useRunDistributions } from '../api/get-run-distribution';
import { useResultsSource } from '../api/results-api';

import { comparedRunLabel, sharedDistributionQuery } from './compare-data';
import { pooledDensity, pooledHistogram } from './distribution-data';
import { DistributionToggle, type DistributionView } from './distribution-toggle';
import { OverheadCharts } from './overhead-charts';
import { RTT_LABEL } from './run-charts';
import { formatInterval } from './run-statistics-table';
import { SizeComparison } from './size-breakdown';

type StatisticRow = readonly [string, (all: RoundTripStatistics, run: ComparedRun) => string];

const STATISTIC_ROWS: readonly StatisticRow[] = [
  ['Delivered (n)', (all) => String(all.n)],
  ['Lost', (all) => String(all.lost)],
  ['Rejected', (all) => String(all.rejected)],
  ['Mean (ms)', (all) => formatDecimal(all.mean_ms, 3)],
  ['95% CI of mean (ms)', (all) => formatInterval(all.ci_low_ms, all.ci_high_ms)],
  ['Median (ms)', (all) => formatDecimal(all.median_ms, 3)],
  ['p95 (ms)', (all) => formatDecimal(all.p95_ms, 3)],
  ['p99 (ms)', (all) => formatDecimal(all.p99_ms, 3)],
  ['Std dev (ms)', (all) => formatDecimal(all.std_ms, 3)],
  ['Combined mean (ms)', (_, run) => formatDecimal(run.statistics.mean_of_device_means_ms, 3)],
];

/** A run's name in the comparison: a link to its page where there is one (not on a shared page). */
const RunName = ({ run }: { run: ComparedRun }) => {
  const { runHref } = useResultsSource();
  return runHref ? <Link to={runHref(run.run_id)}>{comparedRunLabel(run)}</Link> : <>{comparedRunLabel(run)}</>;
};

/** All devices of each run, one column per run. */
const StatisticsSideBySide = ({ runs }: { runs: readonly ComparedRun[] }) => (
  <ScrollTable label="Statistics side by side" className="panel">
    <table className="table">
      <caption className="panel-title">Statistics side by side</caption>
      <thead>
        <tr>
          <th scope="col">All devices</th>
          {runs.map((run) => (
            <th scope="col" key={run.run_id}>
              <RunName run={run} />
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {STATISTIC_ROWS.map(([label, value]) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            {runs.map((run) => (
              <td className="num" key={run.run_id}>
                {value(run.statistics.all_devices, run)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  </ScrollTable>
);

/** p-values to 3 significant figures; tiny ones in exponent form rather than "0.000". */
export const formatPValue = (p: number | null): string => {
  if (p === null || !Number.isFinite(p)) return MISSING;
  return p < 0.001 ? p.toExponential(2) : p.toFixed(3);
};

const differsIn = (pair: PairComparison): string =>
  pair.differs_in.map((d) => `${d.key}: ${d.baseline ?? MISSING} → ${d.treatment ?? MISSING}`).join('; ');

/** Every pair the server matched (same conditions, different treatment), treatment − baseline. */
const PairsTable = ({ comparison, labels }: { comparison: RunComparison; labels: ReadonlyMap<string, string> }) => (
  <ScrollTable label="Paired comparisons" className="panel">
    <table className="table">
      <caption className="panel-title">Paired comparisons</caption>
      <thead>
        <tr>
          <th scope="col">Baseline</th>
          <th scope="col">Treatment</th>
          <th scope="col">Differs in</th>
          <th scope="col">Overhead (ms)</th>
          <th scope="col">95% bootstrap CI (ms)</th>
          <th scope="col">Relative overhead</th>
          <th scope="col">Mann-Whitney U</th>
          <th scope="col">p-value</th>
          <th scope="col">Max rate (Hz)</th>
        </tr>
      </thead>
      <tbody>
        {comparison.pairs.map((pair) => (
          <tr key={`${pair.baseline_run_id}-${pair.treatment_run_id}`}>
            <th scope="row">{labels.get(pair.baseline_run_id) ?? pair.baseline_run_id}</th>
            <td>{labels.get(pair.treatment_run_id) ?? pair.treatment_run_id}</td>
            <td>{differsIn(pair)}</td>
            <td className="num">{formatDecimal(pair.overhead_ms, 3)}</td>
            <td className="num">{formatInterval(pair.ci_low_ms, pair.ci_high_ms)}</td>
            <td className="num">
              {pair.relative_overhead_pct === null ? MISSING : `${formatDecimal(pair.relative_overhead_pct, 1)}%`}
            </td>
            <td className="num">{formatDecimal(pair.mann_whitney_u, 1)}</td>
            <td className="num">{formatPValue(pair.p_value)}</td>
            <td className="num">{formatDecimal(pair.max_rate_hz, 1)}</td>
          </tr>
        ))}
      </tbody>
    </table>
    {comparison.pairs.length === 0 ? (
      <p className="empty">
        No pairs: two runs pair when their conditions (QoS, payload, schedule, devices…) agree and their treatment
        (protocol, security, transport…) differs.
      </p>
    ) : (
      <p className="muted">
        Bootstrap: {comparison.bootstrap.resamples} resamples, seed {comparison.bootstrap.seed}. Max rate: the message
        rate above which the overhead exceeds the message period.
      </p>
    )}
  </ScrollTable>
);

/** Each run's devices pooled, on one value range: histograms (as densities) or violins. */
const DistributionOverlay = ({ comparison, labels }: { comparison: RunComparison; labels: ReadonlyMap<string, string> }) => {
  const [view, setView] = useState<DistributionView>('histogram');
  const runIds = useMemo(() => comparison.runs.map((run) => run.run_id), [comparison.runs]);
  const query = useMemo(() => sharedDistributionQuery(comparison, DISTRIBUTION_BINS), [comparison]);
  const distributions = useRunDistributions({ runIds, query });
  const histograms = useMemo(
    () => distributions.data.map((d) => pooledHistogram(d, labels.get(d.run_id) ?? d.run_id)),
    [distributions.data, labels],
  );
  const densities = useMemo(
    () => distributions.data.map((d) => pooledDensity(d, labels.get(d.run_id) ?? d.run_id)),
    [distributions.data, labels],
  );

  return (
    <ChartPanel
      label="Round-trip time distribution by run"
      controls={<DistributionToggle value={view} onChange={setView} name="compare-distribution-view" />}
    >
      {distributions.error ? <ErrorAlert error={distributions.error} /> : null}
      {distributions.isPending ? <Loading label="Loading plot data…" /> : null}
      {!distributions.error && !distributions.isPending ? (
        view === 'histogram' ? (
          <BinnedHistogramChart series={histograms} valueLabel={RTT_LABEL} scale="density" />
        ) : (
          <ViolinChart series={densities} valueLabel={RTT_LABEL} />
        )
      ) : null}
    </ChartPanel>
  );
};

type CompareViewProps = { runIds: readonly string[] };

/** The runs of the URL side by side (GET /api/compare/), their pairs and their distributions. */
export const CompareView = ({ runIds }: CompareViewProps) => {
  const comparison = useComparison({ runIds });
  const labels = useMemo(
    () => new Map((comparison.data?.runs ?? []).map((run) => [run.run_id, comparedRunLabel(run)])),
    [comparison.data?.runs],
  );

  if (runIds.length < COMPARE_RUNS_MIN) {
    return <p className="empty">Choose at least {COMPARE_RUNS_MIN} runs to compare.</p>;
  }
  if (comparison.isPending) return <Loading label="Comparing…" />;
  if (comparison.isError) return <ErrorAlert error={comparison.error} title="The runs could not be compared." />;
  return (
    <>
      <PairsTable comparison={comparison.data} labels={labels} />
      <OverheadCharts comparison={comparison.data} labels={labels} />
      <StatisticsSideBySide runs={comparison.data.runs} />
      <DistributionOverlay comparison={comparison.data} labels={labels} />
      <SizeComparison runIds={runIds} labels={labels} />
    </>
  );
};
