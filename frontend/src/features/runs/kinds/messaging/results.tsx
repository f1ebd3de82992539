import type { Run } from '@/types/api';

import { measuresOneWay } from '../../components/clock-offset-data';
import { RunCharts } from '../../components/run-charts';
import { RunStatisticsPanel } from '../../components/run-statistics';
import { RunSummaryTable } from '../../components/run-summary-table';
import { RunSizeBreakdown } from '../../components/size-breakdown';
import type { RunResultsProps } from '../types';

const NO_SECURITY = 'none';

/** The payload security a messaging run used, from the spec it was dispatched with. */
const securityOf = (run: Run): string =>
  typeof run.spec.security === 'string' ? run.spec.security : NO_SECURITY;

/** Whether the run timed a mechanism on each message: a payload security mechanism, SRUP's
 * signatures (its spec's `security` is always none), or an interleaved run's rotation. */
const timesSecuring = (run: Run): boolean =>
  securityOf(run) !== NO_SECURITY || run.spec.protocol === 'srup' || Array.isArray(run.spec.interleave_mechanisms);

/**
 * A messaging run's round trips: charts, statistics, size breakdown and securing times.
 * Only messaging runs have round trips: the results endpoints answer the other kinds with
 * 400 run_has_no_round_trips, so they are never called for them.
 */
export const MessagingResults = ({ run, mechanismLabels }: RunResultsProps) => (
  <>
    <RunCharts runId={run.id} oneWay={measuresOneWay(run.spec)} />
    <RunStatisticsPanel runId={run.id} />
    <RunSizeBreakdown runId={run.id} mechanismLabels={mechanismLabels} />
    {timesSecuring(run) ? (
      <div className="panel">
        <RunSummaryTable rows={run.summary} />
      </div>
    ) : null}
  </>
);
