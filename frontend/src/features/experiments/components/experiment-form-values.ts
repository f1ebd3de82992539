import type { FieldErrors } from '@/lib/api-client';
import type { DesignAxis, DesignExclusion, Device, ExperimentKind } from '@/types/api';

import {
  createExperimentInputSchema,
  EXPERIMENT_DEFAULTS,
  EXPERIMENT_KINDS,
  type CreateExperimentInput,
} from '../api/create-experiment';
import { kindForm } from '../kinds';
import { toNumber } from '../kinds/draft-values';
import type { KindDraftContext } from '../kinds/types';

import { parseDataSizes } from './data-sizes';
import {
  AXIS_EDITORS,
  axisName,
  choiceToWire,
  liveExclusions,
  type AxisDraft,
  type AxisParameter,
} from './design-axes';

/**
 * What the new-experiment form holds, and how it becomes a create-experiment input: the
 * fields every kind has here, each kind's own fields through its values in
 * ../kinds/<kind>/values.ts (registered in EXPERIMENT_KIND_FORMS).
 */

type KeysOfUnion<T> = T extends unknown ? keyof T : never;
/** Every field of any kind of experiment. */
export type FieldName = KeysOfUnion<CreateExperimentInput>;

type CommonField =
  | 'kind'
  | 'name'
  | 'device_ids'
  | 'axes'
  | 'exclusions'
  | 'repeats'
  | 'order_seed'
  | 'description'
  | 'description_generated'
  | 'preset';
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
  /**
   * The description is the design's generated one (a preset's or a generated clone's) and is
   * generated again from the design as saved; typing in it makes it the user's own text.
   */
  description_generated: boolean;
  /** The preset the design started from ('' for none). */
  preset: string;
  device_ids: string[];
  drafts: Drafts;
  matrix: Record<ExperimentKind, MatrixDraft>;
  repeats: string;
  /** The run order's seed as typed; '' for a fresh one at every start. */
  order_seed: string;
};

export type FieldErrorMap = Partial<Record<FieldName, string[]>>;

export const isKind = (value: string): value is ExperimentKind =>
  (EXPERIMENT_KINDS as readonly string[]).includes(value);

const isFieldOf = (kind: ExperimentKind, key: string): key is FieldName =>
  Object.keys(kindForm(kind).values.schema.shape).includes(key);

/** What the chosen kind's conversions see: its draft, its matrix, its sizes (parsed). */
const contextOf = <K extends ExperimentKind>(kind: K, values: FormValues, sizes: readonly number[]): KindDraftContext<K> => ({
  draft: values.drafts[kind],
  matrix: values.matrix[kind],
  sizes,
});

/** The sizes field of the chosen kind, parsed; null for a kind without one. */
const sizesOf = <K extends ExperimentKind>(kind: K, values: FormValues) => {
  const { sizesText } = kindForm(kind).values;
  return sizesText ? parseDataSizes(sizesText(values.drafts[kind])) : null;
};

const kindInput = <K extends ExperimentKind>(kind: K, values: FormValues, sizes: readonly number[]) =>
  kindForm(kind).values.toInput(contextOf(kind, values, sizes));

const toCandidate = (values: FormValues, sizes: readonly number[], axes: readonly DesignAxis[]) => ({
  kind: values.kind,
  name: values.name,
  device_ids: values.device_ids,
  axes: axes.map((axis) => ({ ...axis })),
  exclusions: liveExclusions(axes, values.matrix[values.kind].exclusions),
  repeats: toNumber(values.repeats),
  ...(values.order_seed.trim() === '' ? {} : { order_seed: toNumber(values.order_seed) }),
  description: values.description,
  description_generated: values.description_generated,
  preset: values.preset,
  ...kindInput(values.kind, values, sizes),
});

/** Each kind's draft as it starts (a copy: a draft is the form's to change). */
const initialDrafts = (): Drafts => ({
  messaging: structuredClone(kindForm('messaging').values.defaults),
  cipher_bench: structuredClone(kindForm('cipher_bench').values.defaults),
  throughput: structuredClone(kindForm('throughput').values.defaults),
});

export const initialValues = (devices: readonly Pick<Device, 'id' | 'online'>[]): FormValues => ({
  kind: EXPERIMENT_DEFAULTS.kind,
  name: '',
  description: '',
  description_generated: false,
  preset: '',
  repeats: '1',
  order_seed: '',
  matrix: {
    messaging: { axes: [], exclusions: [] },
    cipher_bench: { axes: [], exclusions: [] },
    throughput: { axes: [], exclusions: [] },
  },
  // Online devices can run right away, so they are the sensible default.
  device_ids: devices.filter((d) => d.online).map((d) => d.id),
  drafts: initialDrafts(),
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
  const sizes = sizesOf(values.kind, values);
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

/** The schema a varied number parameter's values are checked with: the kind's field schema. */
const numberSchemaOf = (kind: ExperimentKind, parameter: AxisParameter) => kindForm(kind).values.numberSchemas[parameter];

/** The items a `split` parameter's axis runs one by one: the field's own list. */
const splitItems = <K extends ExperimentKind>(
  kind: K,
  values: FormValues,
  parameter: AxisParameter,
  sizes: readonly number[],
): unknown[] => {
  if (parameter === 'device_ids') return values.device_ids;
  return kindForm(kind).values.splitItems?.(parameter, contextOf(kind, values, sizes)) ?? [];
};

/** Whether the chosen kind shows the parameter's field (a hidden field's axis is left out). */
const isShown = <K extends ExperimentKind>(kind: K, values: FormValues, parameter: AxisParameter): boolean =>
  kindForm(kind).values.isShown?.(parameter, contextOf(kind, values, [])) ?? true;

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
      const schema = numberSchemaOf(values.kind, parameter);
      if (schema) {
        for (const number of numbers) {
          const checked = schema.safeParse(number);
          if (!checked.success) return { ok: false, error: checked.error.issues[0]?.message ?? 'Not a valid value.' };
        }
      }
      if (new Set(numbers).size !== numbers.length) return { ok: false, error: 'Enter each value only once.' };
      return { ok: true, values: numbers };
    }
    case 'split': {
      const items = splitItems(values.kind, values, parameter, sizes);
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
    if (!isShown(values.kind, values, axis.parameter)) continue;
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
