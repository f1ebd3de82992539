import { useMemo } from 'react';

import { BoxSummaryChart, ChartPanel, GroupedBarChart } from '@/components/charts';
import type { RunComparison } from '@/types/api';

import {
  boxOf,
  deviceDifferences,
  deviceMeansChartData,
  overheadChartData,
  pairMeansChartData,
  runBoxes,
} from './overhead-data';

const CONDITION = 'Condition';
const DIFFERENCES = 'Per-device differences';

type OverheadChartsProps = { comparison: RunComparison; labels: ReadonlyMap<string, string> };

/**
 * The SRUP paper's comparison figures, from the comparison's figures alone: a box per run
 * (its Figures 5-11 across conditions), mean round trip by device per run (Figure 7); when runs pair up, the combined means per condition (8),
 * the overhead with its 95% bootstrap interval (9) and the box of the per-device
 * differences over every pair (10).
 */
export const OverheadCharts = ({ comparison, labels }: OverheadChartsProps) => {
  const byDevice = useMemo(() => deviceMeansChartData(comparison.runs, labels), [comparison.runs, labels]);
  const means = useMemo(() => pairMeansChartData(comparison), [comparison]);
  const overhead = useMemo(() => overheadChartData(comparison), [comparison]);
  const box = useMemo(() => boxOf(DIFFERENCES, deviceDifferences(comparison)), [comparison]);
  const boxes = useMemo(() => runBoxes(comparison.runs, labels), [comparison.runs, labels]);

  return (
    <>
      <ChartPanel label="Round trip per run">
        <BoxSummaryChart boxes={boxes} valueLabel="Round trip (ms): quartiles, whiskers at min and max" />
      </ChartPanel>
      <ChartPanel label="Mean round trip by device">
        <GroupedBarChart data={byDevice} categoryLabel="Run" valueLabel="Mean round trip (ms)" />
      </ChartPanel>
      {comparison.pairs.length > 0 ? (
        <>
          <ChartPanel label="Combined mean per condition">
            <GroupedBarChart data={means} categoryLabel={CONDITION} valueLabel="Mean of device means (ms)" />
          </ChartPanel>
          <ChartPanel label="Overhead per condition">
            <GroupedBarChart
              data={overhead}
              categoryLabel={CONDITION}
              valueLabel="Treatment − baseline (ms), 95% bootstrap CI"
            />
          </ChartPanel>
          <ChartPanel label="Distribution of the differences">
            <BoxSummaryChart boxes={box ? [box] : []} valueLabel="Treatment − baseline per device (ms)" />
          </ChartPanel>
        </>
      ) : null}
    </>
  );
};
