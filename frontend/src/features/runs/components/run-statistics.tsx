import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';

import { useRunStatistics } from '../api/get-run-statistics';

import { RunMechanismStatistics } from './run-statistics-mechanisms';
import { RunStatisticsTable } from './run-statistics-table';

/** The statistics of a completed messaging run, fetched from GET /statistics/; an
 * interleaved run's per mechanism first. */
export const RunStatisticsPanel = ({ runId }: { runId: string }) => {
  const statistics = useRunStatistics({ runId });
  return (
    <div className="panel">
      {statistics.isPending ? <Loading label="Loading statistics…" /> : null}
      {statistics.isError ? <ErrorAlert error={statistics.error} title="The statistics could not be loaded." /> : null}
      {statistics.data && statistics.data.mechanisms.length > 0 ? (
        <RunMechanismStatistics statistics={statistics.data} />
      ) : null}
      {statistics.data ? <RunStatisticsTable statistics={statistics.data} /> : null}
    </div>
  );
};
