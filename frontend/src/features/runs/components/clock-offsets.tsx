
import { ScrollTable } from '@/components/ui/scroll-table';
import { formatMs, MISSING } from '@/lib/format';
import type { Run, RunDevice } from '@/types/api';

import { isRunFinished } from '../api/get-run';

import { measuresOneWay, parseDeviceClock, type ClockReading, type DeviceClock } from './clock-offset-data';

const NO_CLOCK_MESSAGE = 'No clock offset was received from this device.';
const CLOCK_PENDING_MESSAGE = 'Its clock offsets arrive when the device’s run ends.';

const Reading = ({ label, reading }: { label: string; reading: ClockReading | null }) => (
  <tr>
    <th scope="row">{label}</th>
    <td className="num">{reading ? formatMs(reading.offsetMs) : MISSING}</td>
    <td className="num">{reading ? formatMs(reading.uncertaintyMs) : MISSING}</td>
  </tr>
);

const ClockTable = ({ device, clock }: { device: RunDevice; clock: DeviceClock }) => (
  <ScrollTable label={`Clock offset of ${device.name} to the platform`}>
    <table className="table">
      <caption>Clock offset of {device.name} to the platform</caption>
      <thead>
        <tr>
          <th scope="col">Probe</th>
          <th scope="col">Offset (ms)</th>
          <th scope="col">± Uncertainty (ms)</th>
        </tr>
      </thead>
      <tbody>
        <Reading label="Before the run" reading={clock.before} />
        <Reading label="After the run" reading={clock.after} />
        <Reading label="Applied to receive times" reading={clock.applied} />
      </tbody>
    </table>
  </ScrollTable>
);

/**
 * A one-way run's clock offsets per device (platform clock minus device clock, see
 * ./clock-offset-data.ts): each one-way delay may be off by up to the applied uncertainty.
 * Nothing for a round-trip run.
 */
export const ClockOffsets = ({ run }: { run: Run }) => {
  if (run.kind !== 'messaging' || !measuresOneWay(run.spec) || run.devices.length === 0) return null;
  const finished = isRunFinished(run.status);
  return (
    <section className="panel" aria-labelledby="clock-offsets-heading">
      <h2 id="clock-offsets-heading" className="panel-title">
        Clock offset to the platform
      </h2>
      <p className="muted">
        Platform clock minus device clock, probed before and after the run; their mean is added to the
        device’s receive times, so each one-way delay may be off by up to the applied uncertainty.
      </p>
      {run.devices.map((device) => {
        const clock = parseDeviceClock(device.clock);
        return clock ? (
          <ClockTable key={device.device_id} device={device} clock={clock} />
        ) : (
          <p key={device.device_id} className="muted">
            {device.name}: {finished ? NO_CLOCK_MESSAGE : CLOCK_PENDING_MESSAGE}
          </p>
        );
      })}
    </section>
  );
};
