import type { Run } from '@/types/api';

import { isRunFinished } from '../api/get-run';

import { resourceFigures } from './run-resources-data';

const NOT_RECORDED = 'not recorded';
const HELP =
  'What the run cost the agent on each device over its measured window (after connecting and ' +
  'subscribing, before disconnecting): the agent process’s CPU time, all its threads; its peak ' +
  'resident memory; and the bytes its client socket(s) sent and received, with acknowledgements, ' +
  'protocol headers and TLS records, without TCP/UDP/IP headers. Not recorded: agents before ' +
  'these figures, or a device that uploaded nothing.';

/**
 * A messaging run's resources per device (the MQTT/CoAP paper's Figures 4 and 5, measured on
 * the agent process here, not an Android app). They come with the device's last upload, so
 * the panel shows once the run has ended or a device has reported them.
 */
export const RunResources = ({ run }: { run: Run }) => {
  if (run.kind !== 'messaging' || run.devices.length === 0) return null;
  if (!isRunFinished(run.status) && run.devices.every((device) => device.resources === null)) return null;
  return (
    <section className="panel" aria-labelledby="run-resources-heading">
      <h2 id="run-resources-heading" className="panel-title">
        Agent resources
      </h2>
      <p className="muted">{HELP}</p>
      {run.devices.map((device) => {
        const figures = device.resources ? resourceFigures(device.resources) : null;
        return (
          <section key={device.device_id} aria-label={`Resources of ${device.name}`}>
            <h3>{device.name}</h3>
            <dl className="params">
              <dt>Agent CPU time</dt>
              <dd>{figures ? figures.cpuTime : NOT_RECORDED}</dd>
              <dt>Peak memory</dt>
              <dd>{figures ? figures.peakMemory : NOT_RECORDED}</dd>
              <dt>Bytes sent / received</dt>
              <dd>{figures ? figures.bytes : NOT_RECORDED}</dd>
            </dl>
          </section>
        );
      })}
    </section>
  );
};
