import type { ReactNode } from 'react';

import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDecimal, MISSING } from '@/lib/format';
import type { RoundTripStatistics, RunStatistics } from '@/types/api';

type MsKey = 'mean_ms' | 'median_ms' | 'q1_ms' | 'q3_ms' | 'p95_ms' | 'p99_ms' | 'min_ms' | 'max_ms' | 'std_ms';

const BEFORE_CI: readonly (readonly [MsKey, string])[] = [['mean_ms', 'Mean (ms)']];
const AFTER_CI: readonly (readonly [MsKey, string])[] = [['median_ms', 'Median (ms)']];
const AFTER_MEDIAN_CI: readonly (readonly [MsKey, string])[] = [
  ['q1_ms', 'Q1 (ms)'],
  ['q3_ms', 'Q3 (ms)'],
  ['p95_ms', 'p95 (ms)'],
  ['p99_ms', 'p99 (ms)'],
  ['min_ms', 'Min (ms)'],
  ['max_ms', 'Max (ms)'],
  ['std_ms', 'Std dev (ms)'],
];

/** "low – high" to 3 decimals, or an em dash when there is no interval (below 2 values). */
export const formatInterval = (low: number | null | undefined, high: number | null | undefined): string =>
  low === null || low === undefined || high === null || high === undefined
    ? MISSING
    : `${formatDecimal(low, 3)} – ${formatDecimal(high, 3)}`;

export const percent = (confidence: number) => `${Math.round(confidence * 100)}%`;

/** The mean's interval, marked "(t)" where there were too few values for the bootstrap. */
const meanInterval = (row: RoundTripStatistics): string => {
  const interval = formatInterval(row.ci_low_ms, row.ci_high_ms);
  return row.ci_method === 't' ? `${interval} (t)` : interval;
};

const Row = ({ row, label, total = false }: { row: RoundTripStatistics; label: ReactNode; total?: boolean }) => (
  <tr className={total ? 'row-total' : undefined}>
    <th scope="row">{label}</th>
    <td className="num">{row.n}</td>
    <td className="num">{row.lost}</td>
    <td className="num">{row.rejected}</td>
    {BEFORE_CI.map(([key]) => (
      <td className="num" key={key}>
        {formatDecimal(row[key], 3)}
      </td>
    ))}
    <td className="num">{meanInterval(row)}</td>
    {AFTER_CI.map(([key]) => (
      <td className="num" key={key}>
        {formatDecimal(row[key], 3)}
      </td>
    ))}
    <td className="num">{formatInterval(row.median_ci_low_ms, row.median_ci_high_ms)}</td>
    {AFTER_MEDIAN_CI.map(([key]) => (
      <td className="num" key={key}>
        {formatDecimal(row[key], 3)}
      </td>
    ))}
    <td className="num">{formatDecimal(row.variance_ms2, 3)}</td>
  </tr>
);

/** A table row: its statistics, its label and whether it totals the rows above it. */
export type StatisticsRow = { key: string; label: ReactNode; row: RoundTripStatistics; total?: boolean };

type StatisticsTableProps = { caption: string; chooserKey: string; first: string; confidence: number; rows: StatisticsRow[] };

/** Round-trip statistics, one row each (the run's summary, or an interleaved run's per mechanism). */
export const StatisticsTable = ({ caption, chooserKey, first, confidence, rows }: StatisticsTableProps) => (
  <ScrollTable label={caption} chooserKey={chooserKey}>
    <table className="table">
      <caption className="panel-title">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{first}</th>
          <th scope="col">n</th>
          <th scope="col">Lost</th>
          <th scope="col">Rejected</th>
          {BEFORE_CI.map(([key, label]) => (
            <th scope="col" key={key}>
              {label}
            </th>
          ))}
          <th scope="col">{percent(confidence)} CI of mean (ms)</th>
          {AFTER_CI.map(([key, label]) => (
            <th scope="col" key={key}>
              {label}
            </th>
          ))}
          <th scope="col">{percent(confidence)} CI of median (ms)</th>
          {AFTER_MEDIAN_CI.map(([key, label]) => (
            <th scope="col" key={key}>
              {label}
            </th>
          ))}
          <th scope="col">Variance (ms²)</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(({ key, label, row, total }) => (
          <Row key={key} label={label} row={row} total={total} />
        ))}
      </tbody>
    </table>
  </ScrollTable>
);

type RunStatisticsTableProps = { statistics: RunStatistics };

/**
 * Round-trip statistics per device and all devices (GET /statistics/), the combined mean of
 * the device means, and the repeats of the run. Captioned "Summary": it is the run's summary.
 * An interleaved run's summary mixes its mechanisms (per mechanism: RunMechanismStatistics).
 */
export const RunStatisticsTable = ({ statistics }: RunStatisticsTableProps) => {
  const { repeats } = statistics;
  const interleaved = statistics.mechanisms.length > 0;
  const rows: StatisticsRow[] = [
    ...statistics.devices.map((row) => ({ key: row.device_id ?? row.device_name, label: row.device_name, row })),
    { key: 'all', label: statistics.all_devices.device_name, row: statistics.all_devices, total: true },
  ];
  return (
    <>
      <StatisticsTable
        caption={interleaved ? 'Summary (every mechanism together)' : 'Summary'}
        chooserKey="run-summary"
        first="Device"
        confidence={statistics.confidence}
        rows={rows}
      />
      <p className="muted">
        Intervals: of the mean, the studentized bootstrap (bootstrap-t, 2,000 resamples) from 10 to 5,000 messages, else
        the t interval, marked (t); of the median, the percentile bootstrap from 10 messages up. The t interval of
        every mean is in the API and the exports (t_ci_low_ms, t_ci_high_ms).
      </p>
      <dl className="params">
        <dt>Combined mean (mean of device means)</dt>
        <dd>{formatDecimal(statistics.mean_of_device_means_ms, 3)} ms</dd>
        <dt>Repeats (completed runs of this experiment with the same spec)</dt>
        <dd>
          {repeats.n < 2
            ? `${repeats.n} run${repeats.n === 1 ? '' : 's'}: no interval below 2 runs`
            : `${repeats.n} runs: mean ${formatDecimal(repeats.mean_ms, 3)} ms, std dev ${formatDecimal(repeats.std_ms, 3)} ms, ${percent(statistics.confidence)} CI ${formatInterval(repeats.ci_low_ms, repeats.ci_high_ms)} ms (t interval over the runs' means)`}
        </dd>
      </dl>
    </>
  );
};
