import type { FieldErrors } from '@/lib/api-client';
import type { DesignAxis, DesignExclusion, Device, ExperimentKind, Measurement } from '@/types/api';

import {
  BROKER_PROTOCOLS,
  cipherBenchInputSchema,
  createExperimentInputSchema,
  EXPERIMENT_DEFAULTS,
  EXPERIMENT_KINDS,
  MEASUREMENTS,
  messagingInputSchema,
  NO_SECURITY,
  THROUGHPUT_DEFAULTS,
  throughputInputSchema,
  type CreateExperimentInput,
} from '../api/create-experiment';

import { parseDataSizes } from './data-sizes';
import {
  AXIS_EDITORS,
  axisName,
  axisParameters,
  choiceToWire,
  liveExclusions,
  type AxisDraft,
  type AxisParameter,
} from './design-axes';

/** What the new-experiment form holds, and how it becomes a create-experiment input. */

type KeysOfUnion<T> = T extends unknown ? keyof T : never;
/** Every field of any kind of experiment. */
export type FieldName = KeysOfUnion<CreateExperimentInput>;

type CommonField = 'kind' | 'name' | 'device_ids' | 'axes' | 'exclusions' | 'repeats' | 'description' | 'preset';
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

/** One kind's condition matrix: its axes in order (first outermost) and its exclusions. */
export type MatrixDraft = { axes: AxisDraft[]; exclusions: DesignExclusion[] };

// Numbers (and sizes) are parsed at submit time.
export type FormValues = {
  kind: ExperimentKind;
  name: string;
  description: string;
  /** The preset the design started from ('' for none). */
  preset: string;
  device_ids: string[];
  drafts: Drafts;
  matrix: Record<ExperimentKind, MatrixDraft>;
  repeats: string;
};

export type FieldErrorMap = Partial<Record<FieldName, string[]>>;

// --- what a messaging design's protocols allow ---------------------------------------------

/** The protocols a messaging design runs: its protocol axis' values, else the fixed one. */
export const messagingProtocols = (draft: Drafts['messaging'], matrix: MatrixDraft): string[] => {
  const axis = matrix.axes.find((a) => axisParameters(a).includes('protocol'));
  if (!axis) return [draft.protocol];
  return axis.type === 'vary' ? axis.choices : axis.values.map((value) => String(value.protocol));
};

/**
 * The messaging fields that mean something for these protocols (experiments/rules.py
 * _protocol_errors): only broker protocols (MQTT, SRUP) have an MQTT version, TLS and
 * network profiles; SRUP signs instead of securing the payload; CoAP has a message type and
 * method instead of a QoS; MQTT-SN a topic id type. Hidden fields are sent as their
 * neutral values and cannot vary.
 */
export const shownMessagingFields = (protocols: readonly string[]) => {
  const broker = protocols.some((p) => (BROKER_PROTOCOLS as readonly string[]).includes(p));
  return {
    mqtt_version: broker,
    transport: broker,
    network_profile: broker,
    srup_signature: protocols.includes('srup'),
    security: protocols.some((p) => p !== 'srup'),
    qos: protocols.some((p) => p !== 'coap'),
    coap_type: protocols.includes('coap'),
    coap_method: protocols.includes('coap'),
    topic_id_type: protocols.includes('mqttsn'),
  } satisfies Partial<Record<AxisParameter, boolean>>;
};

/**
 * The measurements these protocols allow: one way only when every protocol goes through the
 * broker (the API answers CoAP and MQTT-SN with a field error on `measurement`).
 */
export const offeredMeasurements = (protocols: readonly string[]): readonly Measurement[] =>
  protocols.every((p) => (BROKER_PROTOCOLS as readonly string[]).includes(p)) ? MEASUREMENTS : ['round_trip'];

/** The draft's measurement if the protocols allow it, else round trip (what is shown and sent). */
export const effectiveMeasurement = (draft: Drafts['messaging'], protocols: readonly string[]): string =>
  (offeredMeasurements(protocols) as readonly string[]).includes(draft.measurement)
    ? draft.measurement
    : EXPERIMENT_DEFAULTS.measurement;

type ShownField = keyof ReturnType<typeof shownMessagingFields>;

const isShown = (values: FormValues, parameter: AxisParameter): boolean => {
  if (values.kind !== 'messaging' || !(parameter in shownMessagingFields([]))) return true;
  const shown = shownMessagingFields(messagingProtocols(values.drafts.messaging, values.matrix.messaging));
  return shown[parameter as ShownField];
};

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

/** The fields a cipher benchmark and a throughput experiment share: what is timed, at which sizes, how often. */
const benchCandidate = (draft: Drafts['cipher_bench' | 'throughput'], sizes: readonly number[]) => ({
  mechanisms: draft.mechanisms,
  data_sizes: sizes,
  repetitions: toNumber(draft.repetitions),
});

const toCandidate = (values: FormValues, sizes: readonly number[], axes: readonly DesignAxis[]) => {
  const common = {
    name: values.name,
    device_ids: values.device_ids,
    axes: axes.map((axis) => ({ ...axis })),
    exclusions: liveExclusions(axes, values.matrix[values.kind].exclusions),
    repeats: toNumber(values.repeats),
    description: values.description,
    preset: values.preset,
  };
  switch (values.kind) {
    case 'messaging': {
      const draft = values.drafts.messaging;
      const protocols = messagingProtocols(draft, values.matrix.messaging);
      const shown = shownMessagingFields(protocols);
      return {
        kind: values.kind,
        ...common,
        protocol: draft.protocol,
        srup_signature: draft.srup_signature,
        mqtt_version: draft.mqtt_version,
        transport: shown.transport ? draft.transport : EXPERIMENT_DEFAULTS.transport,
        qos: toNumber(draft.qos),
        coap_type: draft.coap_type,
        coap_method: draft.coap_method,
        topic_id_type: draft.topic_id_type,
        // SRUP signs every message itself; its payload goes unencrypted inside the signature.
        security: shown.security ? draft.security : NO_SECURITY,
        payload_size: toNumber(draft.payload_size),
        message_count: toNumber(draft.message_count),
        interval_ms: toNumber(draft.interval_ms),
        interval_distribution: draft.interval_distribution,
        measurement: effectiveMeasurement(draft, protocols),
        // "" is "None (no shaping)": left out, so the server applies its default (none).
        ...(draft.network_profile && shown.network_profile ? { network_profile: draft.network_profile } : {}),
      };
    }
    case 'cipher_bench':
      return { kind: values.kind, ...common, ...benchCandidate(values.drafts.cipher_bench, sizes) };
    case 'throughput': {
      const draft = values.drafts.throughput;
      return { kind: values.kind, ...common, ...benchCandidate(draft, sizes), window_ms: toNumber(draft.window_ms) };
    }
  }
};

export const initialValues = (devices: readonly Pick<Device, 'id' | 'online'>[]): FormValues => ({
  kind: EXPERIMENT_DEFAULTS.kind,
  name: '',
  description: '',
  preset: '',
  repeats: '1',
  matrix: {
    messaging: { axes: [], exclusions: [] },
    cipher_bench: { axes: [], exclusions: [] },
    throughput: { axes: [], exclusions: [] },
  },
  // Online devices can run right away, so they are the sensible default.
  device_ids: devices.filter((d) => d.online).map((d) => d.id),
  drafts: {
    messaging: {
      protocol: EXPERIMENT_DEFAULTS.protocol,
      srup_signature: EXPERIMENT_DEFAULTS.srup_signature,
      mqtt_version: EXPERIMENT_DEFAULTS.mqtt_version,
      transport: EXPERIMENT_DEFAULTS.transport,
      qos: String(EXPERIMENT_DEFAULTS.qos),
      coap_type: EXPERIMENT_DEFAULTS.coap_type,
      coap_method: EXPERIMENT_DEFAULTS.coap_method,
      topic_id_type: EXPERIMENT_DEFAULTS.topic_id_type,
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
  const parsedSizes = sizes?.ok ? sizes.sizes : [];
  const axes = axesOf(values, parsedSizes);
  const parsed = createExperimentInputSchema.safeParse(toCandidate(values, parsedSizes, axes.axes));
  const axesValid = Object.keys(axes.errors).length === 0;
  if (parsed.success && sizes?.ok !== false && axesValid) return { ok: true, input: parsed.data };

  const errors: FieldErrorMap = { ...axes.errors };
  for (const issue of parsed.error?.issues ?? []) {
    const key = String(issue.path[0]);
    if (isFieldOf(values.kind, key)) addError(errors, key, issue.message);
  }
  // An unreadable entry explains the problem better than "enter at least one size".
  if (sizes?.ok === false) errors.data_sizes = [sizes.error];
  return { ok: false, errors };
};

/** The plan request of the form's design (POST /api/experiments/plan/ takes no name), or null while it is incomplete. */
export const planInput = (values: FormValues): Omit<CreateExperimentInput, 'name'> | null => {
  // The name does not change the plan: check the rest with a stand-in.
  const validated = validateForm({ ...values, name: values.name.trim() || 'plan' });
  if (!validated.ok) return null;
  const { name: _name, ...input } = validated.input;
  return input;
};

// --- axes ------------------------------------------------------------------------------------

// A varied number parameter's values are checked with the parameter's own field schema.
const NUMBER_SCHEMAS = {
  payload_size: messagingInputSchema.shape.payload_size,
  message_count: messagingInputSchema.shape.message_count,
  interval_ms: messagingInputSchema.shape.interval_ms,
  repetitions: cipherBenchInputSchema.shape.repetitions,
  window_ms: throughputInputSchema.shape.window_ms,
} as const;

const isNumberParameter = (parameter: AxisParameter): parameter is keyof typeof NUMBER_SCHEMAS =>
  parameter in NUMBER_SCHEMAS;

/** The items a `split` parameter's axis runs one by one: the field's own list. */
const splitItems = (values: FormValues, parameter: AxisParameter, sizes: readonly number[]): unknown[] => {
  switch (parameter) {
    case 'device_ids':
      return values.device_ids;
    case 'data_sizes':
      return [...sizes];
    case 'mechanisms':
      return values.kind === 'messaging' ? [] : values.drafts[values.kind].mechanisms;
    default:
      return [];
  }
};

/** The values of one varied parameter as the API takes them, or why they cannot be. */
const varyValues = (
  values: FormValues,
  axis: Extract<AxisDraft, { type: 'vary' }>,
  sizes: readonly number[],
): { ok: true; values: unknown[] } | { ok: false; error: string } => {
  const { parameter } = axis;
  switch (AXIS_EDITORS[parameter]) {
    case 'choice':
      return axis.choices.length > 0
        ? { ok: true, values: axis.choices.map((choice) => choiceToWire(parameter, choice)) }
        : { ok: false, error: 'Choose at least one value to vary.' };
    case 'numbers': {
      const entries = axis.text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
      if (entries.length === 0) return { ok: false, error: 'Enter the values to vary, comma-separated.' };
      const numbers = entries.map(toNumber);
      if (isNumberParameter(parameter)) {
        for (const number of numbers) {
          const checked = NUMBER_SCHEMAS[parameter].safeParse(number);
          if (!checked.success) return { ok: false, error: checked.error.issues[0]?.message ?? 'Not a valid value.' };
        }
      }
      if (new Set(numbers).size !== numbers.length) return { ok: false, error: 'Enter each value only once.' };
      return { ok: true, values: numbers };
    }
    case 'split': {
      const items = splitItems(values, parameter, sizes);
      return items.length > 0
        ? { ok: true, values: items.map((item) => [item]) }
        : { ok: false, error: 'Choose at least one to run one by one.' };
    }
  }
};

/**
 * The kind's axes as the API takes them (canonical), the index in the matrix draft each
 * comes from (axes of hidden or unreadable fields are left out), and the varied fields' errors.
 */
export const axesOf = (
  values: FormValues,
  sizes: readonly number[],
): { axes: DesignAxis[]; origins: number[]; errors: FieldErrorMap } => {
  const axes: DesignAxis[] = [];
  const origins: number[] = [];
  const errors: FieldErrorMap = {};
  for (const [index, axis] of values.matrix[values.kind].axes.entries()) {
    if (axis.type === 'linked') {
      axes.push({ name: axis.name, values: axis.values });
      origins.push(index);
      continue;
    }
    if (!isShown(values, axis.parameter)) continue;
    const result = varyValues(values, axis, sizes);
    if (result.ok) {
      axes.push({ name: axisName(axis), values: result.values.map((value) => ({ [axis.parameter]: value })) });
      origins.push(index);
    } else {
      addError(errors, axis.parameter, result.error);
    }
  }
  return { axes, origins, errors };
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
