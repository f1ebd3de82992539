import { BENCH_EXPORTS } from '../bench/bench-exports';
import type { RunKindResults } from '../types';

import { ThroughputResults } from './throughput-results';

/** A throughput run's page: its results, progress in windows (two per mechanism, payload size and repetition), its windows' exports. */
export const THROUGHPUT_RUN: RunKindResults = {
  Results: ThroughputResults,
  progressUnit: 'windows',
  exports: { ...BENCH_EXPORTS, 'records.csv': 'one row per window: packets, wall and CPU time' },
};
