import { useMemo } from 'react';
import { useNavigate } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { paths } from '@/config/paths';
import { useDevices } from '@/features/devices/api/get-devices';
import { PowerTracesList } from '@/features/power/components/power-traces-list';
import { TraceUpload } from '@/features/power/components/trace-upload';

// The route joins the two features: power must not import from devices.
const PowerRoute = () => {
  const navigate = useNavigate();
  // The devices a new trace can be attached to; uploading works without them.
  const devices = useDevices();
  const choices = useMemo(() => (devices.data ?? []).map((d) => ({ id: d.id, name: d.name })), [devices.data]);

  return (
    <>
      <h1>Power traces</h1>
      <section className="panel" aria-labelledby="upload-heading">
        <h2 id="upload-heading" className="panel-title">
          Upload a trace
        </h2>
        {devices.isError ? <ErrorAlert title="The devices could not be loaded." error={devices.error} /> : null}
        <TraceUpload devices={choices} onUploaded={(trace) => void navigate(paths.powerTrace.getHref(trace.id))} />
      </section>
      <PowerTracesList />
    </>
  );
};

export default PowerRoute;
