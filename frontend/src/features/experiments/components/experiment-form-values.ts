import type { FieldErrors } from '@/lib/api-client';
import type { Device, ExperimentKind } from '@/types/api';

import {
  cipherBenchInputSchema,
  createExperimentInputSchema,
  EXPERIMENT_DEFAULTS,
  EXPERIMENT_KINDS,
  messagingInputSchema,
  type CreateExperimentInput,
} from '../api/create-experiment';

import { parseDataSizes } from './data-sizes';

/** What the new-experiment form holds, and how it becomes a create-experiment input. */

type KeysOfUnion<T> = T extends unknown ? keyof T : never;
/** Every field of either kind of experiment. */
export type FieldName = KeysOfUnion<CreateExperimentInput>;
type ListField = 'device_ids' | 'mechanisms';
export type TextField = Exclude<FieldName, ListField | 'kind'>;

// What the inputs hold: text, as typed. Numbers (and data sizes) are parsed at submit time.
// Both kinds' values are kept, so switching the kind back and forth loses nothing.
export type FormValues = Record<TextField, string> & Record<ListField, string[]> & { kind: ExperimentKind };

export type FieldErrorMap = Partial<Record<FieldName, string[]>>;

// The fields each kind shows; server errors about other fields go to the form's alert.
const FIELDS_BY_KIND: Record<ExperimentKind, readonly string[]> = {
  messaging: Object.keys(messagingInputSchema.shape),
  cipher_bench: Object.keys(cipherBenchInputSchema.shape),
};

export const isKind = (value: string): value is ExperimentKind =>
  (EXPERIMENT_KINDS as readonly string[]).includes(value);

const isFieldOf = (kind: ExperimentKind, key: string): key is FieldName =>
  FIELDS_BY_KIND[kind].includes(key);

const toNumber = (value: string): number => (value.trim() === '' ? Number.NaN : Number(value));

const toCandidate = (values: FormValues, dataSizes: readonly number[]) =>
  values.kind === 'cipher_bench'
    ? {
        kind: values.kind,
        name: values.name,
        mechanisms: values.mechanisms,
        data_sizes: dataSizes,
        repetitions: toNumber(values.repetitions),
        device_ids: values.device_ids,
      }
    : {
        kind: values.kind,
        name: values.name,
        protocol: values.protocol,
        qos: toNumber(values.qos),
        security: values.security,
        payload_size: toNumber(values.payload_size),
        message_count: toNumber(values.message_count),
        interval_ms: toNumber(values.interval_ms),
        measurement: values.measurement,
        device_ids: values.device_ids,
      };

export const initialValues = (devices: readonly Pick<Device, 'id' | 'online'>[]): FormValues => ({
  kind: EXPERIMENT_DEFAULTS.kind,
  name: '',
  protocol: EXPERIMENT_DEFAULTS.protocol,
  qos: String(EXPERIMENT_DEFAULTS.qos),
  security: EXPERIMENT_DEFAULTS.security,
  payload_size: String(EXPERIMENT_DEFAULTS.payload_size),
  message_count: String(EXPERIMENT_DEFAULTS.message_count),
  interval_ms: String(EXPERIMENT_DEFAULTS.interval_ms),
  measurement: EXPERIMENT_DEFAULTS.measurement,
  mechanisms: [],
  data_sizes: '',
  repetitions: String(EXPERIMENT_DEFAULTS.repetitions),
  // Online devices can run right away, so they are the sensible default.
  device_ids: devices.filter((d) => d.online).map((d) => d.id),
});

const addError = (errors: FieldErrorMap, field: FieldName, message: string) => {
  const messages = errors[field] ?? [];
  // One message per problem, even when several list items share it.
  if (!messages.includes(message)) errors[field] = [...messages, message];
};

/**
 * The form's values as a create-experiment input of their kind, or the messages of every
 * field in the way (only the kind's own fields are checked).
 */
export const validateForm = (
  values: FormValues,
): { ok: true; input: CreateExperimentInput } | { ok: false; errors: FieldErrorMap } => {
  const sizes = values.kind === 'cipher_bench' ? parseDataSizes(values.data_sizes) : null;
  const parsed = createExperimentInputSchema.safeParse(toCandidate(values, sizes?.ok ? sizes.sizes : []));
  if (parsed.success && sizes?.ok !== false) return { ok: true, input: parsed.data };

  const errors: FieldErrorMap = {};
  for (const issue of parsed.error?.issues ?? []) {
    const key = String(issue.path[0]);
    if (isFieldOf(values.kind, key)) addError(errors, key, issue.message);
  }
  // An unreadable entry explains the problem better than "enter at least one size".
  if (sizes?.ok === false) errors.data_sizes = [sizes.error];
  return { ok: false, errors };
};

/** Splits a server validation error into messages for the kind's fields and the rest. */
export const splitServerErrors = (kind: ExperimentKind, fields: FieldErrors) => {
  const byField: FieldErrorMap = {};
  const other: string[] = [];
  for (const [key, messages] of Object.entries(fields)) {
    if (isFieldOf(kind, key)) byField[key] = messages;
    else other.push(...messages);
  }
  return { byField, other };
};
