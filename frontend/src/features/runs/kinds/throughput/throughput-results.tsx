import { ChartPanel, GroupedBarChart } from '@/components/charts';
import { formatDataSize } from '@/lib/format';

import { BenchKindResults, type BenchPanelProps, type BenchResultsSpec } from '../bench/bench-results';
import type { RunResultsProps } from '../types';

import { THROUGHPUT_COLUMNS } from './throughput-columns';
import { hasRelativeCosts, packetRateChartData, relativeCostChartData, sortThroughputRows } from './throughput-data';

/** Relative cost of each mechanism and mode, at the payload size chosen for packets per second. */
const RelativeCostPanel = ({ sorted, size, labelFor }: BenchPanelProps) => (
  <ChartPanel
    label="Relative cost"
    controls={
      size === undefined ? null : <p className="muted">Payload {formatDataSize(size)}, as chosen for packets per second.</p>
    }
  >
    {hasRelativeCosts(sorted) ? (
      <GroupedBarChart
        data={relativeCostChartData(sorted, size, labelFor)}
        categoryLabel="Mechanism"
        valueLabel="Relative cost (×, None = 1)"
      />
    ) : (
      <p className="muted">
        No relative costs: this run did not measure the None baseline. Include None in the
        experiment&apos;s mechanisms to compare against it.
      </p>
    )}
  </ChartPanel>
);

const THROUGHPUT_RESULTS: BenchResultsSpec = {
  sortRows: sortThroughputRows,
  // One payload size at a time, for both charts: the paper compares mechanisms per size.
  sizeLabel: 'Payload',
  bars: {
    label: 'Packets per second',
    valueLabel: 'Packets per second, ± std dev',
    // Linear by default, unlike a cipher benchmark's times: packet rates of the usual ciphers
    // stay within one order of magnitude, and a linear axis shows their ratios as they are.
    logScale: false,
    data: packetRateChartData,
  },
  Panel: RelativeCostPanel,
  table: { caption: 'Throughput', columns: THROUGHPUT_COLUMNS },
};

/** A completed throughput run: packets per second and relative cost charts, then every statistic. */
export const ThroughputResults = ({ run, mechanismLabels }: RunResultsProps) => (
  <BenchKindResults spec={THROUGHPUT_RESULTS} rows={run.bench_summary} mechanismLabels={mechanismLabels} />
);
