import type { FieldErrors } from '@/lib/api-client';
import { issuesByField } from '@/lib/issues-by-field';
import type { NetworkProfile } from '@/types/api';

import { profileNameSchema, type CreateNetworkProfileInput } from '../api/create-network-profile';
import {
  DEFAULT_DISTRIBUTION,
  DEFAULT_LIMIT,
  directionSpecSchema,
  parseLinkSpec,
  TABLE_REQUIRED_MESSAGE,
  type Distribution,
  type DirectionSpec,
  type GilbertElliott,
  type LinkSpec,
  type ShapedDirection,
} from '../api/link-spec';
import type { UpdateNetworkProfileInput } from '../api/update-network-profile';

/**
 * The profile form's values and their way to and from a spec (pure, tested on their own).
 * Numbers are kept as the text typed, so a half-typed "0." is not rewritten under the cursor.
 */

export const NUMBER_FIELDS = [
  'rate_kbit',
  'delay_ms',
  'jitter_ms',
  'loss_pct',
  'duplicate_pct',
  'reorder_pct',
  'corrupt_pct',
  'limit',
] as const;
export type NumberField = (typeof NUMBER_FIELDS)[number];

export type DirectionValues = Record<NumberField, string> & {
  distribution: Distribution;
  /** The measured table's name, for distribution "table". */
  table: string;
  /** A Gilbert-Elliott loss model (set through the API): the form keeps it unless unticked. */
  loss_gemodel: GilbertElliott | null;
  keep_loss_gemodel: boolean;
};

/** The fields of a direction an error can be shown next to. */
export type DirectionField = NumberField | 'distribution' | 'table' | 'loss_gemodel';
const DIRECTION_FIELDS: ReadonlySet<string> = new Set<DirectionField>([
  ...NUMBER_FIELDS,
  'distribution',
  'table',
  'loss_gemodel',
]);

/** `both`: one set of fields for both directions (edited as `egress`); `separate`: one each. */
export type DirectionMode = 'both' | 'separate';

export type ProfileFormValues = {
  name: string;
  description: string;
  citation: string;
  mode: DirectionMode;
  egress: DirectionValues;
  ingress: DirectionValues;
};

export type ProfileFieldKey = 'name' | 'description' | 'citation' | `${ShapedDirection}.${DirectionField}`;
export type ProfileFieldErrors = Partial<Record<ProfileFieldKey, string[]>>;

const NUMBER_DEFAULTS: Record<NumberField, number> = {
  rate_kbit: 0,
  delay_ms: 0,
  jitter_ms: 0,
  loss_pct: 0,
  duplicate_pct: 0,
  reorder_pct: 0,
  corrupt_pct: 0,
  limit: DEFAULT_LIMIT,
};

/** A direction's values from its spec; no spec: the defaults, which shape nothing. */
export const directionToValues = (spec: DirectionSpec = {}): DirectionValues => ({
  ...(Object.fromEntries(
    NUMBER_FIELDS.map((field) => [field, String(spec[field] ?? NUMBER_DEFAULTS[field])]),
  ) as Record<NumberField, string>),
  distribution: spec.distribution ?? DEFAULT_DISTRIBUTION,
  table: spec.table ?? '',
  loss_gemodel: spec.loss_gemodel ?? null,
  keep_loss_gemodel: spec.loss_gemodel !== undefined,
});

/** A new profile: no shaping at all (spec `{}`, an unshaped LAN). */
export const newProfileValues = (): ProfileFormValues => ({
  name: '',
  description: '',
  citation: '',
  mode: 'both',
  egress: directionToValues(),
  ingress: directionToValues(),
});

const specToDirections = (spec: LinkSpec | null): Pick<ProfileFormValues, 'mode' | 'egress' | 'ingress'> => {
  if (spec === null || !('egress' in spec || 'ingress' in spec)) {
    const both = spec !== null && 'both' in spec ? spec.both : undefined;
    return { mode: 'both', egress: directionToValues(both), ingress: directionToValues(both) };
  }
  return { mode: 'separate', egress: directionToValues(spec.egress), ingress: directionToValues(spec.ingress) };
};

export const profileToFormValues = (
  profile: Pick<NetworkProfile, 'name' | 'description' | 'citation' | 'spec'>,
): ProfileFormValues => ({
  name: profile.name,
  description: profile.description,
  citation: profile.citation,
  ...specToDirections(parseLinkSpec(profile.spec)),
});

type DirectionResult = { spec: DirectionSpec | undefined; errors: Partial<Record<DirectionField, string[]>> };

/**
 * One direction's spec: only what differs from netem's defaults (as the agent's to_dict
 * writes it), undefined when nothing does. The distribution goes with jitter (netem ignores
 * it without; the agent refuses it), a table with distribution "table".
 */
export const buildDirection = (values: DirectionValues): DirectionResult => {
  const candidate: Record<string, unknown> = {};
  for (const field of NUMBER_FIELDS) {
    const text = values[field].trim();
    if (text === '') continue; // empty is the default
    const value = Number(text);
    if (value !== NUMBER_DEFAULTS[field]) candidate[field] = value;
  }
  const jitter = typeof candidate.jitter_ms === 'number' ? candidate.jitter_ms : 0;
  if (values.distribution === 'table') {
    // Sent even without jitter, so the server can say what the table still needs.
    candidate.distribution = 'table';
    candidate.table = values.table.trim();
  } else if (values.distribution !== DEFAULT_DISTRIBUTION && jitter !== 0) {
    candidate.distribution = values.distribution;
  }
  if (values.loss_gemodel && values.keep_loss_gemodel) candidate.loss_gemodel = values.loss_gemodel;

  const parsed = directionSpecSchema.safeParse(candidate);
  if (!parsed.success) {
    const isField = (key: string): key is DirectionField => DIRECTION_FIELDS.has(key);
    const errors: DirectionResult['errors'] = issuesByField(parsed.error.issues, isField);
    // The schema's refinement runs only once the fields themselves are valid: say it now too.
    if (values.distribution === 'table' && !values.table.trim()) errors.table ??= [TABLE_REQUIRED_MESSAGE];
    return { spec: undefined, errors };
  }
  return { spec: Object.keys(parsed.data).length > 0 ? parsed.data : undefined, errors: {} };
};

/** The spec of the form's directions (`{}` when nothing is shaped), or the fields in the way. */
export const buildSpec = (
  values: Pick<ProfileFormValues, 'mode' | 'egress' | 'ingress'>,
): { ok: true; spec: LinkSpec } | { ok: false; errors: ProfileFieldErrors } => {
  const directions: ShapedDirection[] = values.mode === 'both' ? ['egress'] : ['egress', 'ingress'];
  const errors: ProfileFieldErrors = {};
  const specs: Partial<Record<ShapedDirection, DirectionSpec>> = {};
  for (const direction of directions) {
    const result = buildDirection(values[direction]);
    for (const [field, messages] of Object.entries(result.errors)) {
      errors[`${direction}.${field as DirectionField}`] = messages;
    }
    if (result.spec) specs[direction] = result.spec;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  if (values.mode === 'both') return { ok: true, spec: specs.egress ? { both: specs.egress } : {} };
  return { ok: true, spec: specs };
};

/** The values as a create request, or the messages of every field in the way. */
export const validateProfileForm = (
  values: ProfileFormValues,
): { ok: true; input: CreateNetworkProfileInput } | { ok: false; errors: ProfileFieldErrors } => {
  const errors: ProfileFieldErrors = {};
  const name = profileNameSchema.safeParse(values.name);
  if (!name.success) errors.name = name.error.issues.map((issue) => issue.message);
  const spec = buildSpec(values);
  if (!spec.ok) Object.assign(errors, spec.errors);
  if (!name.success || !spec.ok) return { ok: false, errors };
  return {
    ok: true,
    input: { name: name.data, description: values.description.trim(), citation: values.citation.trim(), spec: spec.spec },
  };
};

/** JSON with sorted keys: two specs are the same when this is. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );

/**
 * What an edit changes, for a PATCH: only the fields that differ from the profile as it was
 * loaded. The spec is compared after the same round trip through the form, so the form's
 * way of writing it (defaults left out) alone is not a change.
 */
export const changedFields = (original: ProfileFormValues, input: CreateNetworkProfileInput): UpdateNetworkProfileInput => {
  const changes: UpdateNetworkProfileInput = {};
  if (input.name !== original.name) changes.name = input.name;
  if (input.description !== original.description.trim()) changes.description = input.description;
  if (input.citation !== original.citation.trim()) changes.citation = input.citation;
  const before = buildSpec(original);
  if (!before.ok || canonical(before.spec) !== canonical(input.spec)) changes.spec = input.spec;
  return changes;
};

/** "egress.loss_pct: 120 is above 100; allowed: …" → direction, field, and the rest. */
const SPEC_MESSAGE = /^(both|egress|ingress)\.([a-z_]+)((?:\.[a-z_]+)*): (.*)$/s;

/** Where a field of the spec is on the form, when the form shows it. */
const specFieldKey = (
  path: { direction: string; field: string },
  values: Pick<ProfileFormValues, 'mode' | 'egress' | 'ingress'>,
): ProfileFieldKey | null => {
  const direction: ShapedDirection | null =
    values.mode === 'both'
      ? path.direction === 'both'
        ? 'egress'
        : null
      : path.direction === 'egress' || path.direction === 'ingress'
        ? path.direction
        : null;
  if (direction === null || !DIRECTION_FIELDS.has(path.field)) return null;
  const shown = values[direction];
  if (path.field === 'table' && shown.distribution !== 'table') return null;
  if (path.field === 'loss_gemodel' && shown.loss_gemodel === null) return null;
  return `${direction}.${path.field as DirectionField}`;
};

/**
 * A server validation error split into messages for the form's fields and the rest. The
 * spec's messages come from the agent's parser and start with the field's path
 * ("egress.loss_pct: …"): next to that field the path is left out (the field says it);
 * a message no field on the form matches keeps the server's words as they are.
 */
export const splitServerErrors = (
  fields: FieldErrors,
  values: Pick<ProfileFormValues, 'mode' | 'egress' | 'ingress'>,
): { byField: ProfileFieldErrors; other: string[] } => {
  const byField: ProfileFieldErrors = {};
  const other: string[] = [];
  for (const [key, messages] of Object.entries(fields)) {
    if (key === 'name' || key === 'description' || key === 'citation') {
      (byField[key] ??= []).push(...messages);
      continue;
    }
    if (key !== 'spec') {
      other.push(...messages);
      continue;
    }
    for (const message of messages) {
      const match = SPEC_MESSAGE.exec(message);
      const fieldKey = match ? specFieldKey({ direction: match[1] ?? '', field: match[2] ?? '' }, values) : null;
      if (match && fieldKey) {
        const nested = (match[3] ?? '').replace(/^\./, '');
        (byField[fieldKey] ??= []).push(nested ? `${nested}: ${match[4] ?? ''}` : (match[4] ?? ''));
      } else {
        other.push(message);
      }
    }
  }
  return { byField, other };
};
