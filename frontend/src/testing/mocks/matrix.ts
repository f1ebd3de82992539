import type { DesignAxis, DesignExclusion, ExperimentInput } from '@/types/api';

/**
 * A small fake of the backend's condition matrix (experiments/matrix.py), for the MSW
 * handlers: canonical axes, the combinations that run, and the rules one run must follow.
 */

type RawAxis = { parameter?: unknown; name?: unknown; values?: unknown };

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** {parameter, values} or {name, values: [{...}]} → {name, values: [{parameter: value}]}. */
export const canonicalAxes = (axes: readonly Record<string, unknown>[] = []): DesignAxis[] =>
  axes.map((raw: RawAxis) => {
    const values = Array.isArray(raw.values) ? (raw.values as unknown[]) : [];
    if (typeof raw.parameter === 'string') {
      const parameter = raw.parameter;
      return {
        name: typeof raw.name === 'string' ? raw.name : parameter,
        values: values.map((value) => ({ [parameter]: value })),
      };
    }
    return { name: typeof raw.name === 'string' ? raw.name : '', values: values as Record<string, unknown>[] };
  });

export const matches = (cell: Record<string, unknown>, exclusion: DesignExclusion) =>
  Object.entries(exclusion).every(([key, value]) => sameValue(cell[key], value));

/** Every combination of one value per axis (first axis outermost) that no exclusion removes. */
export const expandCells = (axes: readonly DesignAxis[], exclusions: readonly DesignExclusion[]) => {
  let combinations: Record<string, unknown>[] = [{}];
  for (const axis of axes) {
    combinations = combinations.flatMap((partial) => axis.values.map((value) => ({ ...partial, ...value })));
  }
  const cells = combinations.filter((cell) => !exclusions.some((exclusion) => matches(cell, exclusion)));
  return { cells, excluded: combinations.length - cells.length };
};

/** "qos 0 · security aes-128-cbc": the fake's run labels (the backend's are in words). */
export const cellLabel = (cell: Record<string, unknown>) =>
  Object.entries(cell)
    .map(([key, value]) => `${key} ${Array.isArray(value) ? value.join('+') : String(value)}`)
    .join(' · ');

// The backend's message (experiments/rules.py SRUP_SIGNS_ITSELF).
export const SRUP_SIGNS_ITSELF =
  'SRUP signs every message itself: choose the signature under SRUP and leave payload security at None.';

/** The field errors of a design whose combinations break a rule, as the backend words them. */
export const designErrors = (
  input: Partial<ExperimentInput>,
  cells: readonly Record<string, unknown>[],
  axes: readonly DesignAxis[],
): Record<string, string[]> => {
  const broken = cells.filter((cell) => {
    const run = { ...input, ...cell };
    return run.protocol === 'srup' && (run.security ?? 'none') !== 'none';
  });
  if (broken.length === 0) return {};
  if (axes.length === 0) return { security: [SRUP_SIGNS_ITSELF] };
  return {
    axes: [
      ...broken.map((cell) => `Run “${cellLabel(cell)}”: security: ${SRUP_SIGNS_ITSELF}`),
      'Change the axis values or add these combinations to the exclusions.',
    ],
  };
};
