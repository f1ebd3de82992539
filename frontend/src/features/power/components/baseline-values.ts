import * as z from 'zod';

import { milliampsToAmps, parseNumber } from './energy';

/**
 * The baseline (idle power) both the figures and the projection can subtract: none, a
 * constant power, a constant current at the supply voltage, or a baseline trace's mean.
 * The server takes at most one of its three parameters.
 */

export const BASELINE_MODES = ['none', 'power', 'current', 'trace'] as const;
export type BaselineMode = (typeof BASELINE_MODES)[number];

export const BASELINE_MODE_LABELS: Record<BaselineMode, string> = {
  none: 'None',
  power: 'Constant power (W)',
  current: 'Constant current (mA) at the supply voltage',
  trace: 'A baseline trace',
};

export const isBaselineMode = (value: string): value is BaselineMode =>
  (BASELINE_MODES as readonly string[]).includes(value);

export type BaselineFormValues = {
  baseline_mode: BaselineMode;
  baseline_w: string;
  baseline_ma: string;
  baseline_trace: string;
};

export type BaselineField = keyof BaselineFormValues;

export const NO_BASELINE: BaselineFormValues = {
  baseline_mode: 'none',
  baseline_w: '',
  baseline_ma: '',
  baseline_trace: '',
};

export type BaselineParams = {
  baseline_trace: string | null;
  baseline_w: number | null;
  baseline_current_a: number | null;
};

const notNegative = (label: string) =>
  z.number({ error: `${label} must be a number.` }).min(0, { error: `${label} cannot be negative.` });

/** Zod fields for a schema that validates `baselineCandidate`'s output. */
export const baselineSchemaShape = {
  baseline_w: notNegative('The baseline power').nullable(),
  baseline_ma: notNegative('The baseline current').nullable(),
  baseline_trace: z.string().min(1, { error: 'Choose a baseline trace.' }).nullable(),
};

/** The chosen baseline's value as typed (numbers parsed), the others null. */
export const baselineCandidate = (values: BaselineFormValues) => ({
  baseline_w: values.baseline_mode === 'power' ? parseNumber(values.baseline_w) : null,
  baseline_ma: values.baseline_mode === 'current' ? parseNumber(values.baseline_ma) : null,
  baseline_trace: values.baseline_mode === 'trace' ? values.baseline_trace : null,
});

/** Validated baseline fields as query parameters; the current goes out in amps. */
export const toBaselineParams = (parsed: {
  baseline_w: number | null;
  baseline_ma: number | null;
  baseline_trace: string | null;
}): BaselineParams => ({
  baseline_trace: parsed.baseline_trace,
  baseline_w: parsed.baseline_w,
  baseline_current_a: parsed.baseline_ma === null ? null : milliampsToAmps(parsed.baseline_ma),
});
