import * as z from 'zod';

import type { Run } from '@/types/api';

/**
 * One-way runs (device-agent docs/one-way.md, "Clock correction"): each device probes its
 * clock offset to the platform before and after the run, and adds their mean (`applied`) to
 * its receive times. The agent's `clock_offset` event is stored as `devices[].clock`, JSON
 * the schema does not type, so it is parsed leniently like the network proof: a missing or
 * malformed figure becomes null and is shown as missing.
 */

/** True when the run measures one-way delays (controller to device) instead of round trips. */
export const measuresOneWay = (spec: Run['spec']): boolean => spec.measurement === 'one_way';

const figure = z.number().finite().nullish().catch(null);

const readingSchema = z.looseObject({ offset_ms: figure, uncertainty_ms: figure });

const clockSchema = z.looseObject({
  before: readingSchema.nullish().catch(null),
  after: readingSchema.nullish().catch(null),
  applied_ms: figure,
  applied_uncertainty_ms: figure,
});

/** Platform clock minus device clock, within ± the uncertainty (ms). */
export type ClockReading = { offsetMs: number | null; uncertaintyMs: number | null };

export type DeviceClock = {
  before: ClockReading | null;
  /** Null when the probe after the run failed (the offset before is then applied). */
  after: ClockReading | null;
  applied: ClockReading;
};

const reading = (raw: z.infer<typeof readingSchema> | null | undefined): ClockReading | null =>
  raw ? { offsetMs: raw.offset_ms ?? null, uncertaintyMs: raw.uncertainty_ms ?? null } : null;

/** A device's clock offsets, or null until its agent has reported them. */
export const parseDeviceClock = (clock: unknown): DeviceClock | null => {
  const parsed = clockSchema.safeParse(clock);
  if (!parsed.success) return null;
  const { before, after, applied_ms, applied_uncertainty_ms } = parsed.data;
  return {
    before: reading(before),
    after: reading(after),
    applied: { offsetMs: applied_ms ?? null, uncertaintyMs: applied_uncertainty_ms ?? null },
  };
};
