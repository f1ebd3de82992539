import type { Run } from '@/types/api';

const FIXED = 'fixed';

const isWholeNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0;

/**
 * How a messaging run spaced its messages, from the spec it was dispatched with:
 * "Interval: exponential, mean 500 ms, seed 123", or "Interval: fixed, 500 ms". The spec is
 * untyped and older runs lack these keys: null without a distribution, and a missing or
 * malformed interval or seed is left out. A fixed interval draws nothing, so its seed is not shown.
 */
export const describeInterval = (spec: Run['spec']): string | null => {
  const distribution = spec.interval_distribution;
  if (typeof distribution !== 'string' || distribution === '') return null;
  const random = distribution !== FIXED;
  const parts = [`Interval: ${distribution}`];
  if (isWholeNumber(spec.interval_ms)) {
    parts.push(random ? `mean ${spec.interval_ms} ms` : `${spec.interval_ms} ms`);
  }
  if (random && isWholeNumber(spec.interval_seed)) parts.push(`seed ${spec.interval_seed}`);
  return parts.join(', ');
};
