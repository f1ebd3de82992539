import { useMemo, useState } from 'react';

import { CategoryLineChart, ChartPanel } from '@/components/charts';
import { CheckboxField } from '@/components/ui/form-field';

import { BenchKindResults, type BenchPanelProps, type BenchResultsSpec } from '../bench/bench-results';
import type { RunResultsProps } from '../types';

import { BENCH_COLUMNS } from './bench-columns';
import { meanTimeChartData, sortBenchRows, throughputChartData } from './bench-data';

/** Throughput of every mechanism and operation across the data sizes. */
const ThroughputPanel = ({ sorted, labelFor }: BenchPanelProps) => {
  const [logScale, setLogScale] = useState(true);
  const throughput = useMemo(() => throughputChartData(sorted, labelFor), [sorted, labelFor]);
  return (
    <ChartPanel
      label="Throughput"
      controls={<CheckboxField label="Log scale" checked={logScale} onChange={(event) => setLogScale(event.target.checked)} />}
    >
      <CategoryLineChart data={throughput} categoryLabel="Data size" valueLabel="Throughput (MB/s)" logScale={logScale} />
    </ChartPanel>
  );
};

const CIPHER_BENCH_RESULTS: BenchResultsSpec = {
  sortRows: sortBenchRows,
  sizeLabel: 'Data size',
  bars: {
    label: 'Mean time per operation',
    valueLabel: 'Mean time (µs), ± std dev',
    // Log by default: a signature takes orders of magnitude longer than a block cipher, which
    // a linear axis would flatten to nothing next to it.
    logScale: true,
    data: meanTimeChartData,
  },
  Panel: ThroughputPanel,
  table: { caption: 'Cipher benchmark', columns: BENCH_COLUMNS },
};

/** A completed cipher benchmark: mean time and throughput charts, then every statistic. */
export const BenchResults = ({ run, mechanismLabels }: RunResultsProps) => (
  <BenchKindResults spec={CIPHER_BENCH_RESULTS} rows={run.bench_summary} mechanismLabels={mechanismLabels} />
);
