import { useNavigate, useParams } from 'react-router';

import { Loading } from '@/components/ui/loading';
import { LoadError } from '@/components/ui/not-found';
import { paths } from '@/config/paths';
import { usePowerTrace } from '@/features/power/api/get-power-trace';
import { TraceView } from '@/features/power/components/trace-view';

const PowerTraceRoute = () => {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const trace = usePowerTrace({ traceId: id });

  // Keep showing the last good data if one poll fails; the next poll may succeed.
  if (trace.data) {
    return (
      <TraceView trace={trace.data} onDeleted={() => void navigate(paths.power.getHref(), { replace: true })} />
    );
  }
  if (trace.isError) return <LoadError error={trace.error} />;
  return <Loading />;
};

export default PowerTraceRoute;
