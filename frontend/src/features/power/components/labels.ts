import type { PowerAlignment, PowerTrace, PowerTraceKind, PowerTraceStatus } from '@/types/api';

import { formatSeconds } from './energy';

/** Words for the power pages' enums. */

export const KIND_LABELS: Record<PowerTraceKind, string> = {
  run: 'Run',
  device: 'Device',
  baseline: 'Baseline',
};

export const KINDS = Object.keys(KIND_LABELS) as PowerTraceKind[];

export const isKind = (value: string): value is PowerTraceKind => (KINDS as string[]).includes(value);

export const STATUS_LABELS: Record<PowerTraceStatus, string> = {
  uploaded: 'uploaded',
  parsing: 'parsing',
  parsed: 'parsed',
  failed: 'failed',
};

/** "Detected: Monsoon Power Monitor CSV — high confidence". */
export const describeDetection = (label: string, confidence: string): string =>
  confidence ? `Detected: ${label} — ${confidence} confidence` : `Detected: ${label}`;

/** How the trace's time axis is lined up with its run, in words. */
export const describeAlignment = (trace: Pick<PowerTrace, 'alignment' | 'offset_s' | 'run'>): string => {
  if (trace.alignment === null) {
    return trace.run
      ? 'Not aligned: the run has no measuring window yet.'
      : 'Not aligned: the trace is attached to no run.';
  }
  const alignments: Record<PowerAlignment, string> = {
    absolute: "Aligned by the meter's absolute timestamps.",
    manual: `Aligned by hand: the run starts ${formatSeconds(trace.offset_s ?? 0)} into the trace.`,
    none: 'Not aligned: the meter wrote no wall-clock times. Set the offset to line the trace up with the run.',
  };
  return alignments[trace.alignment];
};
