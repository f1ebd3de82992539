import type { ExperimentKind } from '@/types/api';

import { BenchResults } from './cipher-bench/bench-results';
import { MessagingResults } from './messaging/results';
import { ThroughputResults } from './throughput/throughput-results';
import type { RunKindResults } from './types';

/**
 * Every kind's results on the run page, by name: the one place a new kind is registered
 * (its folder holds its charts, tables and their data shaping). The type makes a kind the
 * API knows but this lacks an error.
 */
export const RUN_KIND_RESULTS: Record<ExperimentKind, RunKindResults> = {
  messaging: { Results: MessagingResults },
  cipher_bench: { Results: ({ run, mechanismLabels }) => <BenchResults rows={run.bench_summary} mechanismLabels={mechanismLabels} /> },
  throughput: { Results: ({ run, mechanismLabels }) => <ThroughputResults rows={run.bench_summary} mechanismLabels={mechanismLabels} /> },
};

export type { RunResultsProps } from './types';
