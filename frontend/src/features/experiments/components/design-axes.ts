import * as z from 'zod';

import type { DesignAxis, DesignExclusion, Experiment, ExperimentKind } from '@/types/api';

/**
 * An experiment's condition matrix as the design form holds it (docs/experiment-design.md):
 * which parameters vary, with which values, which combinations are excluded. The backend
 * (experiments/matrix.py) expands it; the form only builds the request and shows the plan.
 */

/** The parameters an axis may vary, per kind (the backend's KIND_AXIS_PARAMETERS). */
export const KIND_AXIS_PARAMETERS = {
  messaging: [
    'protocol',
    'mqtt_version',
    'transport',
    'srup_signature',
    'qos',
    'coap_type',
    'coap_method',
    'topic_id_type',
    'security',
    'payload_size',
    'message_count',
    'interval_ms',
    'interval_distribution',
    'measurement',
    'network_profile',
    'device_ids',
  ],
  cipher_bench: ['mechanisms', 'data_sizes', 'repetitions', 'crypto_library', 'device_ids'],
  throughput: ['mechanisms', 'data_sizes', 'repetitions', 'window_ms', 'crypto_library', 'device_ids'],
} as const satisfies Record<ExperimentKind, readonly string[]>;

export type AxisParameter = (typeof KIND_AXIS_PARAMETERS)[ExperimentKind][number];

/**
 * How a varied parameter's values are entered: `choice`, some of a select's options;
 * `numbers`, comma-separated; `split`, one run per item of the field's list (mechanism,
 * data size, device).
 */
export type AxisEditor = 'choice' | 'numbers' | 'split';

export const AXIS_EDITORS: Record<AxisParameter, AxisEditor> = {
  protocol: 'choice',
  mqtt_version: 'choice',
  transport: 'choice',
  srup_signature: 'choice',
  qos: 'choice',
  coap_type: 'choice',
  coap_method: 'choice',
  topic_id_type: 'choice',
  security: 'choice',
  interval_distribution: 'choice',
  measurement: 'choice',
  network_profile: 'choice',
  crypto_library: 'choice',
  payload_size: 'numbers',
  message_count: 'numbers',
  interval_ms: 'numbers',
  repetitions: 'numbers',
  window_ms: 'numbers',
  mechanisms: 'split',
  data_sizes: 'split',
  device_ids: 'split',
};

/** The words a label uses for a parameter (the backend's AXIS_PARAMETERS). */
export const AXIS_PARAMETER_LABELS: Record<AxisParameter, string> = {
  protocol: 'protocol',
  mqtt_version: 'MQTT version',
  transport: 'transport',
  srup_signature: 'SRUP signature',
  qos: 'QoS',
  coap_type: 'CoAP message type',
  coap_method: 'CoAP method',
  topic_id_type: 'MQTT-SN topic id type',
  security: 'payload security',
  payload_size: 'payload size',
  message_count: 'message count',
  interval_ms: 'send interval',
  interval_distribution: 'interval distribution',
  measurement: 'measurement',
  network_profile: 'network profile',
  mechanisms: 'mechanisms',
  data_sizes: 'data sizes',
  repetitions: 'repetitions',
  window_ms: 'window',
  crypto_library: 'crypto library',
  device_ids: 'devices',
};

/**
 * One axis in the form. `vary`: a parameter of the form varies; its values are the chosen
 * options (`choice`), the typed text (`numbers`) or the field's own list (`split`).
 * `linked`: parameters that change together, as a preset or a cloned experiment brought
 * them; shown as they are, removable, not editable.
 */
export type AxisDraft =
  | { type: 'vary'; parameter: AxisParameter; choices: string[]; text: string }
  | { type: 'linked'; name: string; values: Record<string, unknown>[] };

export const isAxisParameter = (kind: ExperimentKind, name: string): name is AxisParameter =>
  (KIND_AXIS_PARAMETERS[kind] as readonly string[]).includes(name);

/** The parameters an axis sets (one for `vary`, the keys of its values for `linked`). */
export const axisParameters = (axis: AxisDraft): string[] =>
  axis.type === 'vary' ? [axis.parameter] : Object.keys(axis.values[0] ?? {});

/** The name the backend gives the axis: the parameter's words, or the linked axis' own name. */
export const axisName = (axis: AxisDraft): string =>
  axis.type === 'vary' ? AXIS_PARAMETER_LABELS[axis.parameter] : axis.name;

// --- wire values -----------------------------------------------------------------------------

/** A select option's value as the API takes it: QoS a number, "no network profile" null. */
export const choiceToWire = (parameter: AxisParameter, option: string): unknown => {
  if (parameter === 'qos') return Number(option);
  if (parameter === 'network_profile') return option === '' ? null : option;
  return option;
};

/** A wire value as text: the select option of a choice (the inverse of choiceToWire), a number as typed. */
export const wireToChoice = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
};

export const sameValue = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export const matchesExclusion = (cell: Record<string, unknown>, exclusion: DesignExclusion): boolean =>
  Object.entries(exclusion).every(([key, value]) => sameValue(cell[key], value));

/**
 * The exclusions that still name values of the axes: each key a parameter of an axis, and
 * the values it gives an axis one of that axis' values. Exclusions left behind by an axis
 * that was removed or changed are dropped rather than refused by the server.
 */
export const liveExclusions = (
  axes: readonly DesignAxis[],
  exclusions: readonly DesignExclusion[],
): DesignExclusion[] =>
  exclusions.filter((exclusion) => {
    const keys = Object.keys(exclusion);
    if (keys.length === 0) return false;
    const used = new Set<string>();
    for (const axis of axes) {
      const parameters = Object.keys(axis.values[0] ?? {});
      const named = parameters.filter((p) => p in exclusion);
      if (named.length === 0) continue;
      named.forEach((p) => used.add(p));
      const part = Object.fromEntries(named.map((p) => [p, exclusion[p]]));
      if (!axis.values.some((value) => matchesExclusion(value, part))) return false;
    }
    return keys.every((key) => used.has(key));
  });

// --- the API's axes --------------------------------------------------------------------------

const designAxisSchema = z.object({
  name: z.string(),
  values: z.array(z.record(z.string(), z.unknown())).min(1),
});
const designAxesSchema = z.array(designAxisSchema);
const exclusionsSchema = z.array(z.record(z.string(), z.unknown()));

/** Experiment.axes (typed unknown by the schema) as canonical axes; none if unreadable. */
export const parseAxes = (value: unknown): DesignAxis[] => {
  const parsed = designAxesSchema.safeParse(value);
  return parsed.success ? parsed.data : [];
};

export const parseExclusions = (value: unknown): DesignExclusion[] => {
  const parsed = exclusionsSchema.safeParse(value);
  return parsed.success ? parsed.data : [];
};

/** Whether starting the experiment queues several runs: it has axes, or repeats. */
export const hasSeveralRuns = (experiment: Pick<Experiment, 'axes' | 'repeats'>): boolean =>
  parseAxes(experiment.axes).length > 0 || experiment.repeats > 1;

/**
 * An axis as the API gives it (`{parameter, values}` or canonical), turned into what the
 * form edits: a `vary` axis when it sets one parameter of the kind and the form can offer
 * each of its values (`knownChoices` says which select options exist), else `linked`.
 * `split` parameters vary when each value is a one-item list; their items are returned for
 * the field's list.
 */
export const axisDraftOf = (
  kind: ExperimentKind,
  axis: { name?: string; parameter?: string; values: unknown[] },
  knownChoices: (parameter: AxisParameter) => readonly string[] | null,
): { draft: AxisDraft; items?: unknown[] } => {
  const values: Record<string, unknown>[] =
    axis.parameter !== undefined
      ? axis.values.map((value) => ({ [axis.parameter ?? '']: value }))
      : (axis.values as Record<string, unknown>[]);
  const linked = (): { draft: AxisDraft } => ({
    draft: { type: 'linked', name: axis.name ?? axis.parameter ?? '', values },
  });
  const keys = Object.keys(values[0] ?? {});
  const [parameter] = keys;
  if (keys.length !== 1 || parameter === undefined || !isAxisParameter(kind, parameter)) return linked();
  const plain = values.map((value) => value[parameter]);
  switch (AXIS_EDITORS[parameter]) {
    case 'choice': {
      const options = knownChoices(parameter) ?? [];
      const choices = plain.map(wireToChoice);
      if (!choices.every((choice) => options.includes(choice))) return linked();
      return { draft: { type: 'vary', parameter, choices, text: '' } };
    }
    case 'numbers':
      if (!plain.every((value) => typeof value === 'number')) return linked();
      return { draft: { type: 'vary', parameter, choices: [], text: plain.join(', ') } };
    case 'split':
      if (!plain.every((value) => Array.isArray(value) && value.length === 1)) return linked();
      return {
        draft: { type: 'vary', parameter, choices: [], text: '' },
        items: plain.map((value) => (value as unknown[])[0]),
      };
  }
};
