import type { FieldErrors } from '@/lib/api-client';
import type { Device, ExperimentKind } from '@/types/api';

import {
  cipherBenchInputSchema,
  createExperimentInputSchema,
  EXPERIMENT_DEFAULTS,
  EXPERIMENT_KINDS,
  messagingInputSchema,
  NO_SECURITY,
  THROUGHPUT_DEFAULTS,
  throughputInputSchema,
  type CreateExperimentInput,
} from '../api/create-experiment';

import { parseDataSizes } from './data-sizes';

/** What the new-experiment form holds, and how it becomes a create-experiment input. */

type KeysOfUnion<T> = T extends unknown ? keyof T : never;
/** Every field of any kind of experiment. */
export type FieldName = KeysOfUnion<CreateExperimentInput>;

type CommonField = 'kind' | 'name' | 'device_ids';
type InputOf<K extends ExperimentKind> = Extract<CreateExperimentInput, { kind: K }>;
/** A kind's own fields as its inputs hold them: checked names for a list of names, else text as typed. */
type DraftOf<I> = { [F in Exclude<keyof I, CommonField>]: I[F] extends readonly string[] ? string[] : string };
/**
 * Each kind's own fields, kept apart: a cipher benchmark and a throughput experiment share
 * field names (mechanisms, sizes, repetitions) but not their defaults, and switching the kind
 * back and forth loses nothing.
 */
export type Drafts = { [K in ExperimentKind]: DraftOf<InputOf<K>> };
/** The text fields of one kind (what an <input> or <select> edits); each a FieldName. */
export type TextFieldOf<K extends ExperimentKind> = Extract<
  { [F in keyof Drafts[K]]: Drafts[K][F] extends string ? F : never }[keyof Drafts[K]],
  FieldName
>;

// Numbers (and sizes) are parsed at submit time.
export type FormValues = { kind: ExperimentKind; name: string; device_ids: string[]; drafts: Drafts };

export type FieldErrorMap = Partial<Record<FieldName, string[]>>;

// The fields each kind shows; server errors about other fields go to the form's alert.
const FIELDS_BY_KIND: Record<ExperimentKind, readonly string[]> = {
  messaging: Object.keys(messagingInputSchema.shape),
  cipher_bench: Object.keys(cipherBenchInputSchema.shape),
  throughput: Object.keys(throughputInputSchema.shape),
};

export const isKind = (value: string): value is ExperimentKind =>
  (EXPERIMENT_KINDS as readonly string[]).includes(value);

const isFieldOf = (kind: ExperimentKind, key: string): key is FieldName =>
  FIELDS_BY_KIND[kind].includes(key);

const toNumber = (value: string): number => (value.trim() === '' ? Number.NaN : Number(value));

/** The sizes field of the chosen kind, parsed; null for a kind without one. */
const sizesOf = (values: FormValues) => {
  switch (values.kind) {
    case 'cipher_bench':
    case 'throughput':
      return parseDataSizes(values.drafts[values.kind].data_sizes);
    case 'messaging':
      return null;
  }
};

const toCandidate = (values: FormValues, sizes: readonly number[]) => {
  const common = { name: values.name, device_ids: values.device_ids };
  switch (values.kind) {
    case 'messaging': {
      const draft = values.drafts.messaging;
      return {
        kind: values.kind,
        ...common,
        protocol: draft.protocol,
        srup_signature: draft.srup_signature,
        mqtt_version: draft.mqtt_version,
        transport: draft.transport,
        qos: toNumber(draft.qos),
        // SRUP signs every message itself; its payload goes unencrypted inside the signature.
        security: draft.protocol === 'srup' ? NO_SECURITY : draft.security,
        payload_size: toNumber(draft.payload_size),
        message_count: toNumber(draft.message_count),
        interval_ms: toNumber(draft.interval_ms),
        interval_distribution: draft.interval_distribution,
        measurement: draft.measurement,
        // "" is "None (no shaping)": left out, so the server applies its default (none).
        ...(draft.network_profile ? { network_profile: draft.network_profile } : {}),
      };
    }
    case 'cipher_bench': {
      const draft = values.drafts.cipher_bench;
      return {
        kind: values.kind,
        ...common,
        mechanisms: draft.mechanisms,
        data_sizes: sizes,
        repetitions: toNumber(draft.repetitions),
      };
    }
    case 'throughput': {
      const draft = values.drafts.throughput;
      return {
        kind: values.kind,
        ...common,
        mechanisms: draft.mechanisms,
        data_sizes: sizes,
        repetitions: toNumber(draft.repetitions),
        window_ms: toNumber(draft.window_ms),
      };
    }
  }
};

export const initialValues = (devices: readonly Pick<Device, 'id' | 'online'>[]): FormValues => ({
  kind: EXPERIMENT_DEFAULTS.kind,
  name: '',
  // Online devices can run right away, so they are the sensible default.
  device_ids: devices.filter((d) => d.online).map((d) => d.id),
  drafts: {
    messaging: {
      protocol: EXPERIMENT_DEFAULTS.protocol,
      srup_signature: EXPERIMENT_DEFAULTS.srup_signature,
      mqtt_version: EXPERIMENT_DEFAULTS.mqtt_version,
      transport: EXPERIMENT_DEFAULTS.transport,
      qos: String(EXPERIMENT_DEFAULTS.qos),
      security: EXPERIMENT_DEFAULTS.security,
      payload_size: String(EXPERIMENT_DEFAULTS.payload_size),
      message_count: String(EXPERIMENT_DEFAULTS.message_count),
      interval_ms: String(EXPERIMENT_DEFAULTS.interval_ms),
      interval_distribution: EXPERIMENT_DEFAULTS.interval_distribution,
      measurement: EXPERIMENT_DEFAULTS.measurement,
      network_profile: '',
    },
    cipher_bench: {
      mechanisms: [],
      data_sizes: '',
      repetitions: String(EXPERIMENT_DEFAULTS.repetitions),
    },
    throughput: {
      mechanisms: [...THROUGHPUT_DEFAULTS.mechanisms],
      data_sizes: THROUGHPUT_DEFAULTS.data_sizes.join(', '),
      repetitions: String(THROUGHPUT_DEFAULTS.repetitions),
      window_ms: String(THROUGHPUT_DEFAULTS.window_ms),
    },
  },
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
  const sizes = sizesOf(values);
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
