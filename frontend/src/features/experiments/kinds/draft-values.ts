import { wireToChoice } from '../components/design-axes';

/**
 * Helpers every kind's ./<kind>/values.ts uses to turn its draft (text as typed) into its
 * part of a create-experiment input and a design (a preset, a clone) back into its draft.
 */

/** A typed number; NaN for an empty field, so the schema says "enter a number". */
export const toNumber = (value: string): number => (value.trim() === '' ? Number.NaN : Number(value));

/**
 * `draft` with each of its keys the design sets replaced by the design's value as the form
 * holds it: a list of names for a list field, sizes as "16, 1024", anything else as text.
 */
export const fillDraft = <D extends Record<string, string | string[]>>(draft: D, design: Record<string, unknown>): D => {
  // A copy, lists too: the defaults are shared, the draft is the form's to change.
  const filled: Record<string, string | string[]> = structuredClone(draft);
  for (const key of Object.keys(draft)) {
    const value = design[key];
    if (value === undefined) continue;
    if (Array.isArray(draft[key])) filled[key] = Array.isArray(value) ? value.map(wireToChoice) : [];
    else if (key === 'data_sizes' && Array.isArray(value)) filled[key] = value.join(', ');
    else filled[key] = wireToChoice(value);
  }
  return filled as D;
};
