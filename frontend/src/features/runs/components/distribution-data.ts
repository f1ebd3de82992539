import type { BinnedSeries, BoxSummary, DensitySeries, EnvelopeData } from '@/components/charts';
import { colourOf } from '@/components/charts/colours';
import type { DeviceDistribution, RoundTripStatistics, RunDistribution, RunStatistics } from '@/types/api';

/**
 * From the server's plot data (GET /distribution/) to the charts' plain series. One series
 * per device on the run page (per device and mechanism in an interleaved run); one per run
 * (its devices pooled) on the compare page.
 */

/**
 * A device's series name and colour: in an interleaved run each device's entries are per
 * mechanism, named by the mechanism (with the device when the run had several) and drawn in
 * the mechanism's app-wide colour.
 */
export const entryName = (device: DeviceDistribution, devices: number): string =>
  device.mechanism ? (devices > 1 ? `${device.device_name} · ${device.mechanism}` : device.mechanism) : device.device_name;

const entryStyle = (device: DeviceDistribution, distribution: RunDistribution) => {
  const devices = new Set(distribution.devices.map((d) => d.device_id)).size;
  return {
    name: entryName(device, devices),
    ...(device.mechanism ? { colour: colourOf(device.mechanism) } : {}),
  };
};

/** A statistics row of a device, with its mechanism in an interleaved run. */
export type DeviceMean = Pick<RoundTripStatistics, 'device_id' | 'mean_ms'> & { mechanism?: string | null };

/** The per-device rows of a run's statistics: an interleaved run's per mechanism. */
export const deviceMeans = (statistics: RunStatistics | undefined): DeviceMean[] => {
  if (!statistics) return [];
  if (statistics.mechanisms.length === 0) return statistics.devices;
  return statistics.mechanisms.flatMap((part) => part.devices.map((d) => ({ ...d, mechanism: part.mechanism })));
};

const meanKey = (deviceId: string | null, mechanism: string | null | undefined) => `${deviceId ?? ''}|${mechanism ?? ''}`;

export const deviceHistograms = (distribution: RunDistribution): BinnedSeries[] =>
  distribution.devices.map((device) => ({
    ...entryStyle(device, distribution),
    edges: distribution.edges_ms,
    counts: device.counts,
  }));

export const deviceDensities = (distribution: RunDistribution): DensitySeries[] =>
  distribution.devices.map((device) => ({
    ...entryStyle(device, distribution),
    grid: distribution.grid_ms,
    density: device.density,
  }));

/** Boxes of the devices that delivered something, with each device's mean when known. */
export const deviceBoxes = (distribution: RunDistribution, statistics: readonly DeviceMean[] = []): BoxSummary[] => {
  const means = new Map(statistics.map((s) => [meanKey(s.device_id, s.mechanism), s.mean_ms]));
  return distribution.devices.flatMap((device) =>
    device.box
      ? [
          {
            ...entryStyle(device, distribution),
            q1: device.box.q1_ms,
            median: device.box.median_ms,
            q3: device.box.q3_ms,
            whiskerLow: device.box.whisker_low_ms,
            whiskerHigh: device.box.whisker_high_ms,
            mean: means.get(meanKey(device.device_id, device.mechanism)) ?? null,
            outlierSample: device.box.outlier_sample_ms,
          },
        ]
      : [],
  );
};

/** A device's RTT over the send order: each bucket at the middle of its sequence numbers. */
export const sequenceEnvelope = (device: DeviceDistribution): EnvelopeData => ({
  x: device.series.seq_first.map((first, i) => (first + (device.series.seq_last[i] ?? first)) / 2),
  min: device.series.min_ms,
  max: device.series.max_ms,
  mean: device.series.mean_ms,
});

/** All of a run's devices as one histogram: they share the run's bin edges, so counts add. */
export const pooledHistogram = (distribution: RunDistribution, name: string): BinnedSeries => ({
  name,
  edges: distribution.edges_ms,
  counts: distribution.edges_ms.slice(1).map((_, bin) =>
    distribution.devices.reduce((sum, device) => sum + (device.counts[bin] ?? 0), 0),
  ),
});

/**
 * All of a run's devices as one density: the mixture Σ nᵢ·fᵢ / Σ nᵢ of the devices' densities
 * (the density of the pooled values, as each fᵢ integrates to 1). Null without any density.
 */
export const pooledDensity = (distribution: RunDistribution, name: string): DensitySeries => {
  const withDensity = distribution.devices.filter(
    (device): device is DeviceDistribution & { density: number[] } => device.density !== null,
  );
  const total = withDensity.reduce((sum, device) => sum + device.n, 0);
  if (withDensity.length === 0 || total === 0) return { name, grid: distribution.grid_ms, density: null };
  return {
    name,
    grid: distribution.grid_ms,
    density: distribution.grid_ms.map((_, i) =>
      withDensity.reduce((sum, device) => sum + device.n * (device.density[i] ?? 0), 0) / total,
    ),
  };
};
