import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';

import { useRunStatistics } from '../api/get-run-statistics';

import { RunStatisticsTable } from './run-statistics-table';

/** The statistics of a completed messaging run, fetched from GET /statistics/. */
export const RunStatisticsPanel = ({ runId }: { runId: string }) => {
  const statistics = useRunStatistics({ runId });
  return (
    <div className="panel">
      {statistics.isPending ? <Loading label="Loading statistics…" /> : null}
      {statistics.isError ? <ErrorAlert error={statistics.error} title="The statistics could not be loaded." /> : null}
      {statistics.data ? <RunStatisticsTable statistics={statistics.data} /> : null}
    </div>
  );
};
