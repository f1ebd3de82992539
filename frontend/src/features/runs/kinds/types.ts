import type { ComponentType } from 'react';

import type { Run } from '@/types/api';

import type { RunExportFile } from '../api/run-exports';

/**
 * The seam between the run page and a kind of experiment: the page keeps the status,
 * progress, timeline, network and clock panels and the exports; a kind's entry in
 * ./index.ts draws what its completed (or partly stored) run measured, and says what its
 * progress counts and what its export files hold.
 */

export type RunResultsProps = {
  run: Run;
  /** Mechanism name → label, in catalogue order (which also orders the results). */
  mechanismLabels: ReadonlyMap<string, string>;
};

/** What each export file of a run of the kind holds (shown next to its link). */
export type RunExportDescriptions = Record<RunExportFile, string>;

export type RunKindResults = {
  /** The run's measured results: charts and tables. */
  Results: ComponentType<RunResultsProps>;
  /**
   * What a device's `sent`/`total` count when the kind reports work done (repetitions,
   * windows); undefined for messages, whose progress also shows those echoed back.
   */
  progressUnit?: string;
  exports: RunExportDescriptions;
};
