import { useMemo, useState, type ReactNode } from 'react';

import {
  BinnedHistogramChart,
  BoxSummaryChart,
  ChartPanel,
  EnvelopeChart,
  ViolinChart,
} from '@/components/charts';
import { ErrorAlert } from '@/components/ui/error-alert';
import { SelectField } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';

import { useRunDistribution } from '../api/get-run-distribution';
import { useRunStatistics } from '../api/get-run-statistics';

import {
  deviceBoxes,
  deviceDensities,
  deviceHistograms,
  deviceMeans,
  entryName,
  sequenceEnvelope,
} from './distribution-data';
import { DistributionToggle, type DistributionView } from './distribution-toggle';

export const RTT_LABEL = 'Round-trip time (ms)';
const ONE_WAY_LABEL = 'One-way delay (ms)';
const SEQUENCE_LABEL = 'Message sequence number';

type RunChartsProps = {
  runId: string;
  /** A one-way run (controller to device): its delays are named as such, not as round trips. */
  oneWay?: boolean;
};

/**
 * A completed messaging run's delays per device (round trips, or one-way delays), from the
 * server's plot data (GET /distribution/): distribution as histogram or violin, boxplot,
 * delay over the sequence. An interleaved run's are per mechanism, in the mechanisms' colours.
 */
export const RunCharts = ({ runId, oneWay = false }: RunChartsProps) => {
  const delay = oneWay ? 'One-way delay' : 'Round-trip time';
  const valueLabel = oneWay ? ONE_WAY_LABEL : RTT_LABEL;
  const distribution = useRunDistribution({ runId });
  // Only for the means marked in the boxes: the boxes draw without them.
  const statistics = useRunStatistics({ runId });
  const [view, setView] = useState<DistributionView>('histogram');
  const [chosenDevice, setChosenDevice] = useState<string | null>(null);

  const data = distribution.data;
  const histograms = useMemo(() => (data ? deviceHistograms(data) : []), [data]);
  const densities = useMemo(() => (data ? deviceDensities(data) : []), [data]);
  const boxes = useMemo(
    () => (data ? deviceBoxes(data, deviceMeans(statistics.data)) : []),
    [data, statistics.data],
  );
  // One entry per device, or per device and mechanism in an interleaved run.
  const devices = data?.devices ?? [];
  const deviceCount = new Set(devices.map((d) => d.device_id)).size;
  const keyOf = (d: (typeof devices)[number]) => `${d.device_id}|${d.mechanism ?? ''}`;
  const device = devices.find((d) => keyOf(d) === chosenDevice) ?? devices[0];
  const envelope = useMemo(() => (device ? sequenceEnvelope(device) : null), [device]);

  const body = (chart: () => ReactNode) => {
    if (distribution.isPending) return <Loading label="Loading plot data…" />;
    if (distribution.isError) return <ErrorAlert error={distribution.error} />;
    return chart();
  };

  return (
    <div className="chart-grid">
      <ChartPanel
        label={`${delay} ${view}`}
        controls={<DistributionToggle value={view} onChange={setView} name="run-distribution-view" />}
      >
        {body(() =>
          view === 'histogram' ? (
            <BinnedHistogramChart series={histograms} valueLabel={valueLabel} />
          ) : (
            <ViolinChart series={densities} valueLabel={valueLabel} />
          ),
        )}
      </ChartPanel>
      <ChartPanel label={`${delay} boxplot`}>
        {body(() => (
          <BoxSummaryChart boxes={boxes} valueLabel={valueLabel} />
        ))}
      </ChartPanel>
      <ChartPanel
        label={`${delay} over the sequence`}
        controls={
          devices.length > 1 ? (
            <SelectField
              label={devices.some((d) => d.mechanism) ? 'Mechanism' : 'Device'}
              value={device ? keyOf(device) : ''}
              onChange={(event) => setChosenDevice(event.target.value)}
              options={devices.map((d) => ({ value: keyOf(d), label: entryName(d, deviceCount) }))}
            />
          ) : null
        }
      >
        {body(() =>
          envelope ? (
            <EnvelopeChart data={envelope} xLabel={SEQUENCE_LABEL} yLabel={valueLabel} />
          ) : (
            <p className="muted">No samples to plot.</p>
          ),
        )}
      </ChartPanel>
    </div>
  );
};
