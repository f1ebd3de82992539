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

import { deviceBoxes, deviceDensities, deviceHistograms, sequenceEnvelope } from './distribution-data';
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
 * delay over the sequence.
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
    () => (data ? deviceBoxes(data, statistics.data?.devices) : []),
    [data, statistics.data?.devices],
  );
  const devices = data?.devices ?? [];
  const device = devices.find((d) => d.device_id === chosenDevice) ?? devices[0];
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
              label="Device"
              value={device?.device_id ?? ''}
              onChange={(event) => setChosenDevice(event.target.value)}
              options={devices.map((d) => ({ value: d.device_id, label: d.device_name }))}
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
