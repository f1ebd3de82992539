import { useCallback, useMemo, useState } from 'react';

import { CategoryLineChart, ChartPanel, GroupedBarChart } from '@/components/charts';
import { CheckboxField, SelectField } from '@/components/ui/form-field';
import { formatDataSize } from '@/lib/format';
import type { BenchSummaryRow } from '@/types/api';

import { dataSizesOf, meanTimeChartData, sortBenchRows, throughputChartData } from './bench-data';
import { BenchSummaryTable } from './bench-summary-table';

type BenchResultsProps = {
  rows: readonly BenchSummaryRow[];
  /** Mechanism name → label, in catalogue order (which also orders the results). */
  mechanismLabels: ReadonlyMap<string, string>;
};

/** A completed cipher benchmark: mean time and throughput charts, then every statistic. */
export const BenchResults = ({ rows, mechanismLabels }: BenchResultsProps) => {
  const labelFor = useCallback((name: string) => mechanismLabels.get(name) ?? name, [mechanismLabels]);
  const sorted = useMemo(() => sortBenchRows(rows, [...mechanismLabels.keys()]), [rows, mechanismLabels]);
  const sizes = useMemo(() => dataSizesOf(sorted), [sorted]);

  // One data size at a time: bars for every size side by side would be unreadable.
  const [chosenSize, setChosenSize] = useState<number | null>(null);
  const size = chosenSize !== null && sizes.includes(chosenSize) ? chosenSize : sizes[0];
  // Log by default: a signature takes orders of magnitude longer than a block cipher, which
  // a linear axis would flatten to nothing next to it.
  const [meanLogScale, setMeanLogScale] = useState(true);
  const [throughputLogScale, setThroughputLogScale] = useState(true);

  const meanTime = useMemo(() => meanTimeChartData(sorted, size, labelFor), [sorted, size, labelFor]);
  const throughput = useMemo(() => throughputChartData(sorted, labelFor), [sorted, labelFor]);

  return (
    <>
      <ChartPanel
        label="Mean time per operation"
        controls={
          <>
            {sizes.length > 0 ? (
              <SelectField
                label="Data size"
                value={String(size)}
                onChange={(event) => setChosenSize(Number(event.target.value))}
                options={sizes.map((bytes) => ({ value: String(bytes), label: formatDataSize(bytes) }))}
              />
            ) : null}
            <CheckboxField
              label="Log scale"
              checked={meanLogScale}
              onChange={(event) => setMeanLogScale(event.target.checked)}
            />
          </>
        }
      >
        <GroupedBarChart
          data={meanTime}
          categoryLabel="Mechanism"
          valueLabel="Mean time (µs), ± std dev"
          logScale={meanLogScale}
        />
      </ChartPanel>
      <ChartPanel
        label="Throughput"
        controls={
          <CheckboxField
            label="Log scale"
            checked={throughputLogScale}
            onChange={(event) => setThroughputLogScale(event.target.checked)}
          />
        }
      >
        <CategoryLineChart
          data={throughput}
          categoryLabel="Data size"
          valueLabel="Throughput (MB/s)"
          logScale={throughputLogScale}
        />
      </ChartPanel>
      <div className="panel">
        <BenchSummaryTable rows={sorted} labelFor={labelFor} />
      </div>
    </>
  );
};
