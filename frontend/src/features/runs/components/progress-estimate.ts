import type { RunDevice } from '@/types/api';

export type ProgressTimes = {
  /** Since the run started; never negative (the browser's clock may be behind the server's). */
  elapsedMs: number;
  /** At the rate so far; null until something is done. */
  leftMs: number | null;
};

/**
 * How long the run has been going and, at its progress rate so far, how much longer it
 * takes: elapsed × (total − done) / done, over every device's work (what its bar counts:
 * messages sent, repetitions or windows done). Null before the run has started.
 */
export const progressTimes = (
  devices: readonly Pick<RunDevice, 'sent' | 'total'>[],
  startedAt: string | null,
  now: number,
): ProgressTimes | null => {
  const started = startedAt ? Date.parse(startedAt) : Number.NaN;
  if (Number.isNaN(started)) return null;
  const elapsedMs = Math.max(0, now - started);
  const done = devices.reduce((sum, d) => sum + Math.min(d.sent, d.total), 0);
  const total = devices.reduce((sum, d) => sum + d.total, 0);
  const leftMs = done > 0 ? (elapsedMs * Math.max(0, total - done)) / done : null;
  return { elapsedMs, leftMs };
};
