import type { RunExportDescriptions } from '../types';

/** The export files of a bench-like run: its samples and their summary. */
export const BENCH_EXPORTS: RunExportDescriptions = {
  'records.csv': 'one row per sample: wall and CPU time, peak memory (and packets per window)',
  'records.parquet': 'the samples, typed',
  'summary.csv': 'one row per device, mechanism, data size and operation: mean, sample variance and std',
  'summary.parquet': 'the summary, typed, with the devices’ facts in its metadata',
};
