import type { SelectOption } from '@/components/ui/form-field';
import type { FieldErrors } from '@/lib/api-client';
import type { PowerDetection, PowerParseSpec, PowerTimeUnit } from '@/types/api';

import {
  CURRENT_UNITS,
  parseSpecSchema,
  POWER_UNITS,
  VOLTAGE_UNITS,
  type CurrentUnit,
  type ParseSpecInput,
  type PowerUnit,
  type VoltageUnit,
} from '../api/parse-power-trace';

import { parseNumber } from './energy';

/** What the column-mapping form holds (text as typed), and how it becomes a parse spec. */

export type TimeMode = 'column' | 'rate';

export type SpecFormValues = {
  format: string;
  delimiter: string;
  decimal_comma: boolean;
  skip_lines: string;
  time_mode: TimeMode;
  /** Column index as text; '' when none is chosen. The same for the other columns. */
  time_column: string;
  time_unit: PowerTimeUnit;
  datetime_format: string;
  timezone: string;
  sample_rate_hz: string;
  voltage_column: string;
  voltage_unit: VoltageUnit;
  current_column: string;
  current_unit: CurrentUnit;
  power_column: string;
  power_unit: PowerUnit;
  supply_voltage_v: string;
};

export type SpecField = keyof SpecFormValues;
export type SpecFieldErrors = Partial<Record<SpecField, string[]>>;

export const CUSTOM_FORMAT = 'custom';
const CUSTOM_FORMAT_LABEL = 'Other CSV (map the columns)';
const DEFAULT_TIMEZONE = 'UTC';

const text = (value: number | null | undefined): string => (value === null || value === undefined ? '' : String(value));

/** `unit` when it is one of `units`, else the fallback (the schema types units as any string). */
const knownUnit = <U extends string>(units: readonly U[], unit: string | undefined, fallback: U): U =>
  units.find((known) => known === unit) ?? fallback;

/** The form filled from a spec (the detection's suggestion, or the spec tried last). */
export const specToFormValues = (spec: PowerParseSpec): SpecFormValues => ({
  format: spec.format,
  delimiter: spec.delimiter,
  decimal_comma: spec.decimal_comma,
  skip_lines: String(spec.skip_lines),
  time_mode: !spec.time && typeof spec.sample_rate_hz === 'number' ? 'rate' : 'column',
  time_column: text(spec.time?.column),
  time_unit: spec.time?.unit ?? 's',
  datetime_format: spec.time?.datetime_format ?? '',
  timezone: spec.time?.timezone || DEFAULT_TIMEZONE,
  sample_rate_hz: text(spec.sample_rate_hz),
  voltage_column: text(spec.voltage?.column),
  voltage_unit: knownUnit(VOLTAGE_UNITS, spec.voltage?.unit, 'V'),
  current_column: text(spec.current?.column),
  current_unit: knownUnit(CURRENT_UNITS, spec.current?.unit, 'mA'),
  power_column: text(spec.power?.column),
  power_unit: knownUnit(POWER_UNITS, spec.power?.unit, 'W'),
  supply_voltage_v: text(spec.supply_voltage_v),
});

const optionalColumn = <U extends string>(column: string, unit: U) =>
  column === '' ? null : { column: Number(column), unit };

/** The values as a spec-shaped object for the schema; unreadable numbers become NaN. */
const toCandidate = (values: SpecFormValues) => {
  const datetime = values.time_unit === 'datetime';
  return {
    format: values.format,
    delimiter: values.delimiter,
    decimal_comma: values.decimal_comma,
    skip_lines: parseNumber(values.skip_lines),
    time:
      values.time_mode === 'column'
        ? {
            column: values.time_column === '' ? Number.NaN : Number(values.time_column),
            unit: values.time_unit,
            datetime_format: datetime ? values.datetime_format.trim() || null : null,
            // Only wall-clock stamps need a zone; the hidden field cannot be wrong otherwise.
            timezone: datetime ? values.timezone : values.timezone.trim() || DEFAULT_TIMEZONE,
          }
        : null,
    sample_rate_hz: values.time_mode === 'rate' ? parseNumber(values.sample_rate_hz) : null,
    voltage: optionalColumn(values.voltage_column, values.voltage_unit),
    current: optionalColumn(values.current_column, values.current_unit),
    power: optionalColumn(values.power_column, values.power_unit),
    supply_voltage_v: values.supply_voltage_v.trim() === '' ? null : parseNumber(values.supply_voltage_v),
  };
};

const MEASURED = ['voltage', 'current', 'power'] as const;

/**
 * The form field a spec path (from the schema or the server) is about, given how time is
 * set: a problem with "time" as a whole belongs to the sample rate when that is in use.
 */
export const fieldOfPath = (path: readonly PropertyKey[], values: SpecFormValues): SpecField | null => {
  const [head, sub] = path.map(String);
  switch (head) {
    case 'format':
    case 'delimiter':
    case 'decimal_comma':
    case 'skip_lines':
    case 'sample_rate_hz':
    case 'supply_voltage_v':
      return head;
    case 'time':
      if (sub === 'unit') return 'time_unit';
      if (sub === 'datetime_format') return 'datetime_format';
      if (sub === 'timezone') return 'timezone';
      return values.time_mode === 'rate' ? 'sample_rate_hz' : 'time_column';
    default:
      for (const key of MEASURED) {
        if (head === key) return sub === 'unit' ? `${key}_unit` : `${key}_column`;
      }
      return null;
  }
};

const addError = (errors: SpecFieldErrors, field: SpecField, message: string) => {
  const messages = errors[field] ?? [];
  if (!messages.includes(message)) errors[field] = [...messages, message];
};

/** The values as a parse spec, or the messages of every field in the way. */
export const validateSpecForm = (
  values: SpecFormValues,
): { ok: true; spec: ParseSpecInput } | { ok: false; errors: SpecFieldErrors } => {
  const parsed = parseSpecSchema.safeParse(toCandidate(values));
  if (parsed.success) return { ok: true, spec: parsed.data };
  const errors: SpecFieldErrors = {};
  for (const issue of parsed.error.issues) {
    const field = fieldOfPath(issue.path, values);
    if (field) addError(errors, field, issue.message);
  }
  return { ok: false, errors };
};

/** Splits a server validation error into messages for the form's fields and the rest. */
export const splitServerSpecErrors = (fields: FieldErrors, values: SpecFormValues) => {
  const byField: SpecFieldErrors = {};
  const other: string[] = [];
  for (const [key, messages] of Object.entries(fields)) {
    const field = fieldOfPath([key], values);
    if (field) for (const message of messages) addError(byField, field, message);
    else other.push(...messages);
  }
  return { byField, other };
};

/** The file's columns by header name (numbered when a name is missing or repeated). */
export const columnOptions = (detection: Pick<PowerDetection, 'header' | 'preview'>): SelectOption[] => {
  const width = Math.max(detection.header.length, ...detection.preview.map((row) => row.length));
  const names = Array.from({ length: width }, (_, i) => detection.header[i]?.trim() ?? '');
  return names.map((name, i) => {
    const unique = name !== '' && names.indexOf(name) === names.lastIndexOf(name);
    return { value: String(i), label: unique ? name : `Column ${i + 1}${name ? ` (${name})` : ''}` };
  });
};

const DELIMITERS: readonly SelectOption[] = [
  { value: ',', label: 'Comma (,)' },
  { value: ';', label: 'Semicolon (;)' },
  { value: '\t', label: 'Tab' },
  { value: ' ', label: 'Space' },
  { value: '|', label: 'Pipe (|)' },
];

/** The usual delimiters, plus the current one when it is something else. */
export const delimiterOptions = (current: string): SelectOption[] =>
  current === '' || DELIMITERS.some((d) => d.value === current)
    ? [...DELIMITERS]
    : [...DELIMITERS, { value: current, label: `"${current}"` }];

/** The detected format first, then its alternatives and "custom", each once. */
export const formatOptions = (
  detection: Pick<PowerDetection, 'format' | 'label' | 'alternatives'>,
  current: string,
) => {
  const options: SelectOption[] = [];
  const add = (value: string, label: string) => {
    if (!options.some((o) => o.value === value)) options.push({ value, label });
  };
  add(detection.format, `${detection.label} (detected)`);
  for (const alternative of detection.alternatives) add(alternative.format, alternative.label);
  add(CUSTOM_FORMAT, CUSTOM_FORMAT_LABEL);
  // A spec tried before (a failed parse) may name a format the detection did not offer.
  if (current) add(current, current);
  return options;
};

/** The code the parse answers when the file logs current only and no supply voltage was given. */
export const SUPPLY_VOLTAGE_NEEDED_CODE = 'power_supply_voltage_needed';

/**
 * Whether the mapping as it stands needs the supply voltage and lacks it: current is mapped,
 * neither voltage nor power is, and the field is empty. The form asks for it then, rather
 * than letting the parse refuse the spec.
 */
export const needsSupplyVoltage = (values: SpecFormValues): boolean =>
  values.current_column !== '' &&
  values.voltage_column === '' &&
  values.power_column === '' &&
  values.supply_voltage_v.trim() === '';
