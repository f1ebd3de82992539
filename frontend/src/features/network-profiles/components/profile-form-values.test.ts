import { describe, expect, it } from 'vitest';

import {
  buildSpec,
  changedFields,
  directionToValues,
  newProfileValues,
  profileToFormValues,
  splitServerErrors,
  validateProfileForm,
  type ProfileFormValues,
} from './profile-form-values';

const TABLE_SPEC = {
  ingress: { delay_ms: 122.649579, jitter_ms: 40.359329, distribution: 'table', table: 'TIM.bad.3G.no_roaming' },
};

const profile = (spec: unknown) => ({ name: 'p', description: '', citation: '', spec });

describe('profile form values', () => {
  it('should build an empty spec from a new profile: no shaping', () => {
    expect(buildSpec(newProfileValues())).toEqual({ ok: true, spec: {} });
  });

  it('should round-trip a catalogue spec unchanged', () => {
    const values = profileToFormValues(profile(TABLE_SPEC));
    expect(values.mode).toBe('separate');
    expect(buildSpec(values)).toEqual({ ok: true, spec: TABLE_SPEC });
    expect(buildSpec(profileToFormValues(profile({ both: { rate_kbit: 384, delay_ms: 115.6 } })))).toEqual({
      ok: true,
      spec: { both: { rate_kbit: 384, delay_ms: 115.6 } },
    });
  });

  it('should leave out the defaults, and a distribution without jitter', () => {
    const egress = { ...directionToValues(), delay_ms: '50', distribution: 'pareto' as const, limit: '1000' };
    expect(buildSpec({ mode: 'both', egress, ingress: egress })).toEqual({ ok: true, spec: { both: { delay_ms: 50 } } });
    expect(buildSpec({ mode: 'both', egress: { ...egress, jitter_ms: '5' }, ingress: egress })).toEqual({
      ok: true,
      spec: { both: { delay_ms: 50, jitter_ms: 5, distribution: 'pareto' } },
    });
  });

  it('should keep a Gilbert-Elliott model unless it is unticked', () => {
    const values = profileToFormValues(profile({ both: { loss_gemodel: { p_pct: 2, r_pct: 30 } } }));
    expect(buildSpec(values)).toEqual({ ok: true, spec: { both: { loss_gemodel: { p_pct: 2, r_pct: 30 } } } });
    expect(buildSpec({ ...values, egress: { ...values.egress, keep_loss_gemodel: false } })).toEqual({
      ok: true,
      spec: {},
    });
  });

  it('should name the field of every value out of range, and require a name', () => {
    const values: ProfileFormValues = {
      ...newProfileValues(),
      mode: 'separate',
      ingress: { ...directionToValues(), loss_pct: '120', limit: '1.5', distribution: 'table', jitter_ms: 'x' },
    };
    const result = validateProfileForm(values);
    expect(result).toEqual({
      ok: false,
      errors: {
        name: ['Give the profile a name.'],
        'ingress.loss_pct': ['Loss must be at most 100 %.'],
        'ingress.limit': ['The queue limit must be a whole number of packets.'],
        'ingress.jitter_ms': ['The jitter must be a number (ms).'],
        'ingress.table': ['Choose a measured table.'],
      },
    });
  });

  it('should send only what changed, not a spec written differently', () => {
    const original = profileToFormValues({
      ...profile({ both: { delay_ms: 100, distribution: 'normal' } }),
      description: 'old',
    });
    const same = validateProfileForm(original);
    if (!same.ok) throw new Error('expected valid');
    expect(changedFields(original, same.input)).toEqual({});

    const edited = validateProfileForm({ ...original, description: 'new', egress: { ...original.egress, delay_ms: '150' } });
    if (!edited.ok) throw new Error('expected valid');
    expect(changedFields(original, edited.input)).toEqual({ description: 'new', spec: { both: { delay_ms: 150 } } });
  });
});

describe('server errors on the profile form', () => {
  const separate = profileToFormValues(profile(TABLE_SPEC));
  const both = profileToFormValues(profile({ both: { delay_ms: 10 } }));

  it('should put a spec message next to the field it names, without its path', () => {
    expect(
      splitServerErrors(
        { spec: ['ingress.reorder_pct: set without delay_ms; allowed: reorder with delay'], name: ['Taken.'] },
        separate,
      ),
    ).toEqual({
      byField: { 'ingress.reorder_pct': ['set without delay_ms; allowed: reorder with delay'], name: ['Taken.'] },
      other: [],
    });
    // One set of fields for both directions: "both." messages go there.
    expect(splitServerErrors({ spec: ['both.loss_pct: 120 is above 100; allowed: …'] }, both).byField).toEqual({
      'egress.loss_pct': ['120 is above 100; allowed: …'],
    });
  });

  it('should keep the server\'s words for a message no field on the form matches', () => {
    const messages = [
      'egress.loss_gemodel.p_pct: missing; allowed: a number from 0 to 100 (percent)',
      'both: given together with egress/ingress; allowed: …',
      'ingress.table: \'X\' is not a measured table of the catalogue',
    ];
    expect(splitServerErrors({ spec: messages, non_field_errors: ['Odd.'] }, both)).toEqual({
      byField: {},
      other: [...messages, 'Odd.'],
    });
    // The table field is shown for a direction drawing from a table.
    expect(splitServerErrors({ spec: [messages[2] ?? ''] }, separate).byField).toEqual({
      'ingress.table': ['\'X\' is not a measured table of the catalogue'],
    });
  });
});
