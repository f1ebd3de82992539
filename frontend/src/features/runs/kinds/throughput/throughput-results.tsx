import { useCallback, useMemo, useState } from 'react';

import { ChartPanel, GroupedBarChart } from '@/components/charts';
import { CheckboxField, SelectField } from '@/components/ui/form-field';
import { formatDataSize } from '@/lib/format';
import type { BenchSummaryRow } from '@/types/api';

import { dataSizesOf } from '../cipher-bench/bench-data';

import {
  hasRelativeCosts,
  packetRateChartData,
  relativeCostChartData,
  sortThroughputRows,
} from './throughput-data';
import { ThroughputTable } from './throughput-table';

type ThroughputResultsProps = {
  rows: readonly BenchSummaryRow[];
  /** Mechanism name → label, in catalogue order (which also orders the results). */
  mechanismLabels: ReadonlyMap<string, string>;
};

/** A completed throughput run: packets per second and relative cost charts, then every statistic. */
export const ThroughputResults = ({ rows, mechanismLabels }: ThroughputResultsProps) => {
  const labelFor = useCallback((name: string) => mechanismLabels.get(name) ?? name, [mechanismLabels]);
  const sorted = useMemo(() => sortThroughputRows(rows, [...mechanismLabels.keys()]), [rows, mechanismLabels]);
  const sizes = useMemo(() => dataSizesOf(sorted), [sorted]);

  // One payload size at a time, for both charts: the paper compares mechanisms per size.
  const [chosenSize, setChosenSize] = useState<number | null>(null);
  const size = chosenSize !== null && sizes.includes(chosenSize) ? chosenSize : sizes[0];
  // Linear by default, unlike a cipher benchmark's times: packet rates of the usual ciphers
  // stay within one order of magnitude, and a linear axis shows their ratios as they are.
  const [logScale, setLogScale] = useState(false);

  const packetRate = useMemo(() => packetRateChartData(sorted, size, labelFor), [sorted, size, labelFor]);
  const relativeCost = useMemo(() => relativeCostChartData(sorted, size, labelFor), [sorted, size, labelFor]);

  return (
    <>
      <ChartPanel
        label="Packets per second"
        controls={
          <>
            {sizes.length > 0 ? (
              <SelectField
                label="Payload"
                value={String(size)}
                onChange={(event) => setChosenSize(Number(event.target.value))}
                options={sizes.map((bytes) => ({ value: String(bytes), label: formatDataSize(bytes) }))}
              />
            ) : null}
            <CheckboxField
              label="Log scale"
              checked={logScale}
              onChange={(event) => setLogScale(event.target.checked)}
            />
          </>
        }
      >
        <GroupedBarChart
          data={packetRate}
          categoryLabel="Mechanism"
          valueLabel="Packets per second, ± std dev"
          logScale={logScale}
        />
      </ChartPanel>
      <ChartPanel
        label="Relative cost"
        controls={
          size === undefined ? null : (
            <p className="muted">Payload {formatDataSize(size)}, as chosen for packets per second.</p>
          )
        }
      >
        {hasRelativeCosts(sorted) ? (
          <GroupedBarChart data={relativeCost} categoryLabel="Mechanism" valueLabel="Relative cost (×, None = 1)" />
        ) : (
          <p className="muted">
            No relative costs: this run did not measure the None baseline. Include None in the
            experiment&apos;s mechanisms to compare against it.
          </p>
        )}
      </ChartPanel>
      <div className="panel">
        <ThroughputTable rows={sorted} labelFor={labelFor} />
      </div>
    </>
  );
};
