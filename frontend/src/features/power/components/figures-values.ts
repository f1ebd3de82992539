import * as z from 'zod';

import { issuesByField } from '@/lib/issues-by-field';
import type { PowerTrace, PowerWindow } from '@/types/api';

import type { FiguresParams } from '../api/get-power-figures';

import {
  baselineCandidate,
  baselineSchemaShape,
  NO_BASELINE,
  toBaselineParams,
  type BaselineFormValues,
} from './baseline-values';
import { parseNumber, roundTo } from './energy';

/** What the figures form holds (text as typed) and how it becomes the figures query. */

export type FiguresFormValues = BaselineFormValues & {
  start: string;
  end: string;
  reference_trace: string;
};

export type FiguresField = keyof FiguresFormValues;
export type FiguresFieldErrors = Partial<Record<FiguresField, string[]>>;

/** The run window when the trace has one, else the whole trace (what the server defaults to). */
export const defaultWindow = (trace: Pick<PowerTrace, 'run_window' | 'duration_s'>): PowerWindow | null =>
  trace.run_window ?? (trace.duration_s === null ? null : { start_s: 0, end_s: trace.duration_s });

/**
 * Seconds as a window field shows them: to the microsecond, without binary noise
 * (a duration of 0.0015999999999999999 s reads 0.0016).
 */
export const secondsText = (seconds: number): string => String(roundTo(seconds, 6));

export const initialFiguresValues = (trace: Pick<PowerTrace, 'run_window' | 'duration_s'>): FiguresFormValues => {
  const window = defaultWindow(trace);
  return {
    start: window ? secondsText(window.start_s) : '',
    end: window ? secondsText(window.end_s) : '',
    ...NO_BASELINE,
    reference_trace: '',
  };
};

const seconds = (label: string) =>
  z.number({ error: `${label} must be a number of seconds.` }).min(0, { error: `${label} cannot be negative.` });

const figuresFormSchema = z
  .object({ start: seconds('The start'), end: seconds('The end'), ...baselineSchemaShape })
  .refine((values) => values.end > values.start, {
    path: ['end'],
    error: 'The end must come after the start.',
    // Also when another field is wrong (all problems at once), as long as both ends are numbers.
    when: ({ value }) => {
      const { start, end } = value as { start?: unknown; end?: unknown };
      return Number.isFinite(start) && Number.isFinite(end);
    },
  });

/** The form as query parameters, or the messages of the fields in the way. */
export const validateFiguresForm = (
  values: FiguresFormValues,
): { ok: true; params: FiguresParams } | { ok: false; errors: FiguresFieldErrors } => {
  const parsed = figuresFormSchema.safeParse({
    start: parseNumber(values.start),
    end: parseNumber(values.end),
    ...baselineCandidate(values),
  });
  if (!parsed.success) return { ok: false, errors: issuesByField<FiguresField>(parsed.error.issues) };
  const { start, end, ...baseline } = parsed.data;
  return {
    ok: true,
    params: { start, end, ...toBaselineParams(baseline), reference_trace: values.reference_trace || null },
  };
};
