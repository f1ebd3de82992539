import type { ComponentType } from 'react';

import type { Run } from '@/types/api';

/**
 * The seam between the run page and a kind of experiment: the page keeps the status,
 * progress, timeline, network and clock panels and the exports; a kind's entry in
 * ./index.ts draws what its completed (or partly stored) run measured.
 */
export type RunResultsProps = {
  run: Run;
  /** Mechanism name → label, in catalogue order (which also orders the results). */
  mechanismLabels: ReadonlyMap<string, string>;
};

export type RunKindResults = {
  /** The run's measured results: charts and tables. */
  Results: ComponentType<RunResultsProps>;
};
