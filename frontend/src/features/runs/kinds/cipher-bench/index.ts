import { BENCH_EXPORTS } from '../bench/bench-exports';
import type { RunKindResults } from '../types';

import { BenchResults } from './bench-results';

/** A cipher benchmark's run page: its results, progress in repetitions, its samples' exports. */
export const CIPHER_BENCH_RUN: RunKindResults = {
  Results: BenchResults,
  progressUnit: 'repetitions',
  exports: BENCH_EXPORTS,
};
