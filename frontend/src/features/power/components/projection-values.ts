import * as z from 'zod';

import { issuesByField } from '@/lib/issues-by-field';

import type { BatteryCapacity, ProjectionParams } from '../api/get-power-projection';

import {
  baselineCandidate,
  baselineSchemaShape,
  NO_BASELINE,
  toBaselineParams,
  type BaselineFormValues,
} from './baseline-values';
import { mahToWh, parseNumber } from './energy';

/** What the battery-life form holds (text as typed) and how it becomes the projection query. */

export type CapacityUnit = BatteryCapacity['unit'];

export type ProjectionFormValues = BaselineFormValues & {
  capacity_unit: CapacityUnit;
  capacity_wh: string;
  capacity_mah: string;
  capacity_voltage_v: string;
  /** Other traces to compare with this one. */
  compare: string[];
  rate_max_per_min: string;
};

export type ProjectionField = keyof ProjectionFormValues;
export type ProjectionFieldErrors = Partial<Record<ProjectionField, string[]>>;

/** The SRUP paper's battery: 50 Wh. A Li-ion cell's nominal voltage for mAh. */
export const PROJECTION_DEFAULTS: ProjectionFormValues = {
  capacity_unit: 'wh',
  capacity_wh: '50',
  capacity_mah: '',
  capacity_voltage_v: '3.7',
  compare: [],
  ...NO_BASELINE,
  rate_max_per_min: '60',
};

// The backend's bounds on the x axis's last rate (PowerProjectionApi.FilterSerializer).
export const RATE_MIN_PER_MIN = 0.1;
export const RATE_MAX_PER_MIN = 60_000;

const positive = (label: string) =>
  z.number({ error: `${label} must be a number.` }).positive({ error: `${label} must be greater than 0.` });

const schema = z.object({
  capacity_wh: positive('The capacity').nullable(),
  capacity_mah: positive('The capacity').nullable(),
  capacity_voltage_v: positive('The voltage').nullable(),
  ...baselineSchemaShape,
  rate_max_per_min: z
    .number({ error: 'The rate must be a number.' })
    .min(RATE_MIN_PER_MIN, { error: `The rate must be at least ${RATE_MIN_PER_MIN} messages per minute.` })
    .max(RATE_MAX_PER_MIN, { error: `The rate must be at most ${RATE_MAX_PER_MIN} messages per minute.` }),
});

/** The battery in Wh as typed, for the hint next to a mAh capacity; null until both numbers are valid. */
export const capacityInWh = (values: ProjectionFormValues): number | null => {
  if (values.capacity_unit === 'wh') return null;
  const mah = parseNumber(values.capacity_mah);
  const voltage = parseNumber(values.capacity_voltage_v);
  return mah > 0 && voltage > 0 ? mahToWh(mah, voltage) : null;
};

/** The form as the projection query for `traceId` and the compared traces, or the messages in the way. */
export const validateProjectionForm = (
  traceId: string,
  values: ProjectionFormValues,
): { ok: true; params: ProjectionParams } | { ok: false; errors: ProjectionFieldErrors } => {
  const wh = values.capacity_unit === 'wh';
  const parsed = schema.safeParse({
    capacity_wh: wh ? parseNumber(values.capacity_wh) : null,
    capacity_mah: wh ? null : parseNumber(values.capacity_mah),
    capacity_voltage_v: wh ? null : parseNumber(values.capacity_voltage_v),
    ...baselineCandidate(values),
    rate_max_per_min: parseNumber(values.rate_max_per_min),
  });
  if (!parsed.success) return { ok: false, errors: issuesByField<ProjectionField>(parsed.error.issues) };
  const { capacity_wh, capacity_mah, capacity_voltage_v, rate_max_per_min, ...baseline } = parsed.data;
  const capacity: BatteryCapacity =
    capacity_wh !== null
      ? { unit: 'wh', capacity_wh }
      : { unit: 'mah', capacity_mah: capacity_mah ?? 0, capacity_voltage_v: capacity_voltage_v ?? 0 };
  return {
    ok: true,
    params: {
      traces: [traceId, ...values.compare.filter((id) => id !== traceId)],
      capacity,
      ...toBaselineParams(baseline),
      rate_max_per_min,
    },
  };
};
