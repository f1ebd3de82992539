import * as z from 'zod';

import type { Device, ExperimentKind } from '@/types/api';

import {
  ALL_QOS_LEVELS,
  COAP_METHODS,
  COAP_TYPES,
  INTERVAL_DISTRIBUTIONS,
  MEASUREMENTS,
  MQTT_VERSIONS,
  PROTOCOLS,
  SRUP_SIGNATURES,
  TOPIC_ID_TYPES,
  TRANSPORTS,
} from '../api/create-experiment';
import { kindForm } from '../kinds';

import { axisDraftOf, parseExclusions, wireToChoice, type AxisDraft, type AxisParameter } from './design-axes';
import { initialValues, isKind, type Drafts, type FormValues } from './experiment-form-values';

/**
 * A design someone made before (a paper's preset, an experiment to clone) as the values of
 * the new-experiment form: its fixed parameters in the fields, its axes as "Vary" fields
 * where the form can edit them (linked axes otherwise), its exclusions and repeats.
 */

/** What the form's selects offer beyond the constant lists: mechanisms and network profiles. */
export type DesignChoices = { mechanisms: readonly string[]; networkProfiles: readonly string[] };

/** The select options of a parameter, or null for parameters without a select. */
export const knownChoices =
  (choices: DesignChoices) =>
  (parameter: AxisParameter): readonly string[] | null => {
    switch (parameter) {
      case 'protocol':
        return PROTOCOLS;
      case 'mqtt_version':
        return MQTT_VERSIONS;
      case 'transport':
        return TRANSPORTS;
      case 'srup_signature':
        return SRUP_SIGNATURES;
      case 'qos':
        return ALL_QOS_LEVELS.map(String);
      case 'coap_type':
        return COAP_TYPES;
      case 'coap_method':
        return COAP_METHODS;
      case 'topic_id_type':
        return TOPIC_ID_TYPES;
      case 'interval_distribution':
        return INTERVAL_DISTRIBUTIONS;
      case 'measurement':
        return MEASUREMENTS;
      case 'security':
        return choices.mechanisms;
      case 'network_profile':
        return ['', ...choices.networkProfiles];
      default:
        return null;
    }
  };

// A design's axes as the API answers them (canonical) or as a preset may write them.
const rawAxesSchema = z.array(
  z.object({ name: z.string().optional(), parameter: z.string().optional(), values: z.array(z.unknown()).min(1) }),
);

const text = (value: unknown): string | undefined => (value === undefined ? undefined : wireToChoice(value));

/** Each kind's draft from the design (its own fields; the others' defaults where it has none). */
const draftsFromDesign = (design: Record<string, unknown>): Drafts => ({
  messaging: kindForm('messaging').values.fromDesign(design),
  cipher_bench: kindForm('cipher_bench').values.fromDesign(design),
  throughput: kindForm('throughput').values.fromDesign(design),
});

/** The kind's draft with a design's `split` axis items put back into their list field. */
const withSplitItems = <K extends ExperimentKind>(
  kind: K,
  drafts: Drafts,
  parameter: AxisParameter,
  items: readonly string[],
): Drafts[K] => kindForm(kind).values.withSplitItems?.(drafts[kind], parameter, items) ?? drafts[kind];

type FromDesignOptions = {
  devices: readonly Pick<Device, 'id' | 'online'>[];
  choices: DesignChoices;
  name: string;
  /** The design's devices (a clone's); left out, the online devices are chosen (a preset has none). */
  deviceIds?: readonly string[];
};

export const valuesFromDesign = (
  design: Record<string, unknown>,
  { devices, choices, name, deviceIds }: FromDesignOptions,
): FormValues => {
  const base = initialValues(devices);
  const kind = typeof design.kind === 'string' && isKind(design.kind) ? design.kind : base.kind;
  const values: FormValues = {
    ...base,
    kind,
    name,
    description: typeof design.description === 'string' ? design.description : '',
    // A preset's words describe the preset's design; a generated clone's, its source's.
    description_generated: design.description_generated === true,
    preset: typeof design.preset === 'string' ? design.preset : '',
    repeats: text(design.repeats) ?? base.repeats,
    // A clone of a seeded design runs in its order; an unseeded one draws a fresh seed.
    order_seed: text(design.order_seed) ?? base.order_seed,
    device_ids: deviceIds ? [...deviceIds] : base.device_ids,
    drafts: draftsFromDesign(design),
  };
  const rawAxes = rawAxesSchema.safeParse(design.axes);
  const axes: AxisDraft[] = [];
  for (const axis of rawAxes.success ? rawAxes.data : []) {
    const { draft, items } = axisDraftOf(kind, axis, knownChoices(choices));
    axes.push(draft);
    if (!items || draft.type !== 'vary') continue;
    // A list split into one run per item: the items are the field's list.
    const strings = items.map(wireToChoice);
    if (draft.parameter === 'device_ids') values.device_ids = strings;
    else values.drafts = { ...values.drafts, [kind]: withSplitItems(kind, values.drafts, draft.parameter, strings) };
  }
  values.matrix = { ...base.matrix, [kind]: { axes, exclusions: parseExclusions(design.exclusions) } };
  return values;
};
