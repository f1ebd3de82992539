import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import type { PowerTrace } from '@/types/api';

import { usePowerTraces } from '../api/get-power-traces';

import { BatteryReadingForm } from './battery-reading-form';
import { TraceUpload, type DeviceChoice } from './trace-upload';
import { TracesTable } from './traces-table';

type RunPowerTracesProps = {
  runId: string;
  /** The run's devices: a trace measures one of them. */
  devices: readonly DeviceChoice[];
  onUploaded: (trace: PowerTrace) => void;
};

/** The run page's power section: traces attached to the run, and an upload that attaches to it. */
export const RunPowerTraces = ({ runId, devices, onUploaded }: RunPowerTracesProps) => {
  const traces = usePowerTraces({ filters: { run: runId } });

  return (
    <section className="panel" aria-labelledby="run-power-heading">
      <h2 id="run-power-heading" className="panel-title">
        Power traces
      </h2>
      {traces.isPending ? <Loading /> : null}
      {traces.isError ? <ErrorAlert error={traces.error} /> : null}
      {traces.data?.length === 0 ? <p className="empty">No power traces attached to this run yet.</p> : null}
      {traces.data && traces.data.length > 0 ? (
        <TracesTable traces={traces.data} caption="Power traces of this run" hideRun />
      ) : null}
      <BatteryReadingForm runId={runId} devices={devices} />
      <h3 className="subheading">Attach a trace</h3>
      <TraceUpload devices={devices} runId={runId} onUploaded={onUploaded} />
    </section>
  );
};
