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

import {
  comparedDensities,
  comparedHistograms,
  comparedRunLabel,
  partKey,
  partsByMechanism,
  type ComparedPart,
  sharedDistributionQuery,
} from './compare-data';
import { InterleavedOverheads, PartName, UnmatchedNotes } from './compare-mechanisms';
import { DistributionToggle, type DistributionView } from './distribution-toggle';
import { OverheadCharts } from './overhead-charts';
import { RTT_LABEL } from './run-charts';
import { formatInterval } from './run-statistics-table';
import { SizeComparison } from './size-breakdown';
import './compare-view.css';

type StatisticRow = readonly [string, (all: RoundTripStatistics, part: ComparedPart) => string];

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
  ['Combined mean (ms)', (_, part) => formatDecimal(part.combinedMeanMs, 3)],
];

/** A run's name in the comparison: a link to its page where there is one (not on a shared page). */
const RunName = ({ run }: { run: ComparedRun }) => {
  const { runHref } = useResultsSource();
  return runHref ? <Link to={runHref(run.run_id)}>{comparedRunLabel(run)}</Link> : <>{comparedRunLabel(run)}</>;
};

/**
 * All devices of each run, one column per run; an interleaved run's one column per mechanism
 * of its rotation (never its mixed messages), the columns of one mechanism side by side.
 */
const StatisticsSideBySide = ({ runs }: { runs: readonly ComparedRun[] }) => {
  const parts = partsByMechanism(runs);
  return (
    <ScrollTable label="Statistics side by side" className="panel">
      <table className="table">
        <caption className="panel-title">Statistics side by side</caption>
        <thead>
          <tr>
            <th scope="col">All devices</th>
            {parts.map((part) => (
              <th scope="col" key={partKey(part)}>
                <PartName part={part}>
                  <RunName run={part.run} />
                  {part.interleaved ? ` · ${part.mechanism ?? ''}` : null}
                </PartName>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {STATISTIC_ROWS.map(([label, value]) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {parts.map((part) => (
                <td className="num" key={partKey(part)}>
                  {value(part.all, part)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
};

const differsIn = (pair: PairComparison): string =>
  pair.differs_in.map((d) => `${d.key}: ${d.baseline ?? MISSING} → ${d.treatment ?? MISSING}`).join('; ');

/** Which runs a pair compares: one repeat, or every repeat of both sides. */
const pairOver = (pair: PairComparison): string =>
  pair.repeat === null
    ? `${pair.baseline_run_ids.length} + ${pair.treatment_run_ids.length} runs (over runs)`
    : `repeat ${pair.repeat} (one run a side)`;

const signed = (value: number | null, digits: number, unit = ''): string =>
  value === null ? MISSING : `${value > 0 ? '+' : ''}${formatDecimal(value, digits)}${unit}`;

/**
 * Every pair the server matched (sides that differ in exactly one parameter), treatment −
 * baseline. The overhead comes right after the pair's name so that it stays in view on a
 * laptop screen; the verdict says what the interval can see (run-to-run variation or not).
 */
const PairsTable = ({ comparison }: { comparison: RunComparison }) => (
  <ScrollTable label="Paired comparisons" className="panel">
    <table className="table compare-pairs">
      <caption className="panel-title">Paired comparisons</caption>
      <thead>
        <tr>
          <th scope="col">Baseline → treatment</th>
          <th scope="col">Overhead (ms) [95% CI]</th>
          <th scope="col">Relative</th>
          <th scope="col">Verdict</th>
          <th scope="col">Max rate (Hz)</th>
          <th scope="col">Compared over</th>
        </tr>
      </thead>
      <tbody>
        {comparison.pairs.map((pair) => (
          <tr key={`${pair.baseline_run_ids.join()}-${pair.treatment_run_ids.join()}`}>
            <th scope="row">
              {pair.baseline_label} → {pair.treatment_label}
              <div className="muted compare-pairs-differs">{differsIn(pair)}</div>
              {pair.mechanism_text ? <div className="muted compare-pairs-differs">{pair.mechanism_text}</div> : null}
            </th>
            <td className="num">
              {signed(pair.overhead_ms, 3)}
              <div className="muted">{formatInterval(pair.ci_low_ms, pair.ci_high_ms)}</div>
            </td>
            <td className="num">{signed(pair.relative_overhead_pct, 1, '%')}</td>
            <td>{pair.verdict_text}</td>
            <td className="num">{formatDecimal(pair.max_rate_hz, 1)}</td>
            <td>{pairOver(pair)}</td>
          </tr>
        ))}
      </tbody>
    </table>
    {comparison.pairs.length === 0 ? (
      <p className="empty">
        No pairs: two runs pair when they differ in exactly one parameter (security, protocol, payload size…) and
        have the same devices; one run a side pairs within one repeat. An interleaved run pairs by mechanism: its
        messages of one mechanism with the same mechanism of the other run.
      </p>
    ) : (
      <p className="muted">
        Bootstrap: {comparison.bootstrap.resamples} resamples, seed {comparison.bootstrap.seed}. With two runs or more a
        side the interval resamples runs, then messages within them, so it includes run-to-run variation; with one run
        a side it cannot. Max rate: the message rate above which the overhead exceeds the message period, shown only
        when the interval lies above zero.
      </p>
    )}
    <UnmatchedNotes comparison={comparison} />
  </ScrollTable>
);

/**
 * Each run's devices pooled, on one value range: histograms (as densities) or violins; an
 * interleaved run's one series per mechanism, in the mechanism's colour.
 */
const DistributionOverlay = ({ comparison, labels }: { comparison: RunComparison; labels: ReadonlyMap<string, string> }) => {
  const [view, setView] = useState<DistributionView>('histogram');
  const runIds = useMemo(() => comparison.runs.map((run) => run.run_id), [comparison.runs]);
  const query = useMemo(() => sharedDistributionQuery(comparison, DISTRIBUTION_BINS), [comparison]);
  const distributions = useRunDistributions({ runIds, query });
  const histograms = useMemo(
    () => distributions.data.flatMap((d) => comparedHistograms(d, labels.get(d.run_id) ?? d.run_id)),
    [distributions.data, labels],
  );
  const densities = useMemo(
    () => distributions.data.flatMap((d) => comparedDensities(d, labels.get(d.run_id) ?? d.run_id)),
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
      <PairsTable comparison={comparison.data} />
      <OverheadCharts comparison={comparison.data} labels={labels} />
      <StatisticsSideBySide runs={comparison.data.runs} />
      <InterleavedOverheads parts={partsByMechanism(comparison.data.runs)} />
      <DistributionOverlay comparison={comparison.data} labels={labels} />
      <SizeComparison runIds={runIds} labels={labels} />
    </>
  );
};
