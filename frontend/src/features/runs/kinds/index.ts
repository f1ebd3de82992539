import type { ExperimentKind } from '@/types/api';

import { CIPHER_BENCH_RUN } from './cipher-bench';
import { MESSAGING_RUN } from './messaging';
import { THROUGHPUT_RUN } from './throughput';
import type { RunKindResults } from './types';

/**
 * Every kind's part of the run page, by name: the one place a new kind is registered (its
 * folder holds its charts, tables, their data shaping, its progress unit and its exports'
 * descriptions). The type makes a kind the API knows but this lacks an error.
 */
export const RUN_KIND_RESULTS: Record<ExperimentKind, RunKindResults> = {
  messaging: MESSAGING_RUN,
  cipher_bench: CIPHER_BENCH_RUN,
  throughput: THROUGHPUT_RUN,
};

export type { RunExportDescriptions, RunResultsProps } from './types';
