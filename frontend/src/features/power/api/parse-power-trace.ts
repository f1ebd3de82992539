import { useMutation, useQueryClient } from '@tanstack/react-query';
import * as z from 'zod';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { PowerParseSpec, PowerTimeUnit, PowerTrace } from '@/types/api';

import { powerTraceQueryKey } from './get-power-trace';
import { POWER_TRACES_QUERY_KEY } from './get-power-traces';

export const TIME_UNITS = ['s', 'ms', 'us', 'ns', 'datetime'] as const satisfies readonly PowerTimeUnit[];
// The schema types a channel's unit as any string; these are the ones the parser knows
// (docs/power-traces.md, "Parse spec").
export const VOLTAGE_UNITS = ['V', 'mV'] as const;
export const CURRENT_UNITS = ['A', 'mA', 'uA', 'nA'] as const;
export const POWER_UNITS = ['W', 'mW', 'uW'] as const;

export type VoltageUnit = (typeof VOLTAGE_UNITS)[number];
export type CurrentUnit = (typeof CURRENT_UNITS)[number];
export type PowerUnit = (typeof POWER_UNITS)[number];

const columnIndex = z
  .number({ error: 'Choose a column.' })
  .int({ error: 'Choose a column.' })
  .min(0, { error: 'Choose a column.' });

const positive = (label: string) =>
  z.number({ error: `${label} must be a number.` }).positive({ error: `${label} must be greater than 0.` });

const column = <U extends string>(units: readonly [U, ...U[]]) =>
  z.object({ column: columnIndex, unit: z.enum(units, { error: 'Choose a unit.' }) });

const MAPPED = ['voltage', 'current', 'power'] as const;
const COLUMN_LABELS = { time: 'time', voltage: 'voltage', current: 'current', power: 'power' } as const;

/**
 * The parse spec the user confirms (docs/power-traces.md, "Parse spec"). Cross-field rules
 * point their messages at the field to fix; the server checks the same and more.
 */
export const parseSpecSchema = z
  .object({
    format: z.string().min(1, { error: 'Choose a format.' }),
    delimiter: z.string().min(1, { error: 'Choose a delimiter.' }),
    decimal_comma: z.boolean(),
    skip_lines: z
      .number({ error: 'Lines to skip must be a number.' })
      .int({ error: 'Lines to skip must be a whole number.' })
      .min(0, { error: 'Lines to skip cannot be negative.' }),
    time: z
      .object({
        column: columnIndex,
        unit: z.enum(TIME_UNITS, { error: 'Choose a time unit.' }),
        datetime_format: z.string().nullable(),
        timezone: z.string().trim().min(1, { error: 'Enter a time zone, e.g. UTC or Europe/London.' }),
      })
      .nullable(),
    sample_rate_hz: positive('The sample rate').nullable(),
    voltage: column(VOLTAGE_UNITS).nullable(),
    current: column(CURRENT_UNITS).nullable(),
    power: column(POWER_UNITS).nullable(),
    supply_voltage_v: positive('The supply voltage').nullable(),
  })
  .superRefine((spec, ctx) => {
    if (spec.time === null && spec.sample_rate_hz === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['time', 'column'],
        message: 'Choose a time column or give a sample rate.',
      });
    }
    if (spec.time?.unit === 'datetime' && !spec.time.datetime_format) {
      ctx.addIssue({
        code: 'custom',
        path: ['time', 'datetime_format'],
        message: 'Enter the format of the timestamps, e.g. %Y-%m-%d %H:%M:%S.%f.',
      });
    }
    if (spec.power === null && spec.current === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['power'],
        message: 'Map a power column, a current column, or voltage and current columns.',
      });
    }
    if (spec.power === null && spec.current !== null && spec.voltage === null && spec.supply_voltage_v === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['supply_voltage_v'],
        message: 'Enter the supply voltage: without a voltage or power column, power is current × supply voltage.',
      });
    }
    // One column, one meaning: mapping it twice is always a slip.
    const seen = new Map<number, keyof typeof COLUMN_LABELS>();
    if (spec.time && Number.isInteger(spec.time.column)) seen.set(spec.time.column, 'time');
    for (const key of MAPPED) {
      const mapped = spec[key];
      if (!mapped || !Number.isInteger(mapped.column)) continue;
      const other = seen.get(mapped.column);
      if (other) {
        ctx.addIssue({
          code: 'custom',
          path: [key, 'column'],
          message: `This column is already the ${COLUMN_LABELS[other]} column.`,
        });
      } else {
        seen.set(mapped.column, key);
      }
    }
    // Run even when a field failed its own check, so every problem shows at once. The
    // rules above only read fields the form always sets, whatever their validity.
  }, { when: (payload) => typeof payload.value === 'object' && payload.value !== null });

export type ParseSpecInput = z.infer<typeof parseSpecSchema>;

/** POST /api/power-traces/{id}/parse/ with the spec → 202; the trace goes to `parsing`. */
export const parsePowerTrace = ({ traceId, spec }: { traceId: string; spec: ParseSpecInput }): Promise<PowerTrace> =>
  api.post<PowerTrace>(`/api/power-traces/${encodeURIComponent(traceId)}/parse/`, spec satisfies PowerParseSpec);

type UseParsePowerTraceOptions = { mutationConfig?: MutationConfig<typeof parsePowerTrace> };

export const useParsePowerTrace = ({ mutationConfig }: UseParsePowerTraceOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      const [, { traceId }] = args;
      // Re-read the trace: it is `parsing` now (and polled until it is not), or already
      // done when the worker was quick. Lists show the new status too.
      await queryClient.invalidateQueries({ queryKey: powerTraceQueryKey(traceId), exact: true });
      await queryClient.invalidateQueries({ queryKey: [...POWER_TRACES_QUERY_KEY, 'list'] });
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: parsePowerTrace,
  });
};
