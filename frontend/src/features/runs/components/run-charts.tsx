import { useMemo } from 'react';

import { BoxPlotChart, ChartPanel, HistogramChart, type ChartSeries } from '@/components/charts';
import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import type { RunRtt } from '@/types/api';

import { useRunRtt } from '../api/get-run-rtt';

const RTT_LABEL = 'Round-trip time (ms)';

export const rttSeries = (rtt: RunRtt): ChartSeries[] =>
  rtt.devices.map((device) => ({ name: device.name, values: device.rtt_ms }));

type RunChartsProps = { runId: string };

/** Histogram and boxplot of a completed run's round-trip times, one series per device. */
export const RunCharts = ({ runId }: RunChartsProps) => {
  const rtt = useRunRtt({ runId });
  const series = useMemo(() => (rtt.data ? rttSeries(rtt.data) : []), [rtt.data]);

  const body = (chart: 'histogram' | 'box') => {
    if (rtt.isPending) return <Loading label="Loading samples…" />;
    if (rtt.isError) return <ErrorAlert error={rtt.error} />;
    return chart === 'histogram' ? (
      <HistogramChart series={series} valueLabel={RTT_LABEL} />
    ) : (
      <BoxPlotChart series={series} valueLabel={RTT_LABEL} />
    );
  };

  return (
    <div className="chart-grid">
      <ChartPanel label="Round-trip time histogram">{body('histogram')}</ChartPanel>
      <ChartPanel label="Round-trip time boxplot">{body('box')}</ChartPanel>
    </div>
  );
};
