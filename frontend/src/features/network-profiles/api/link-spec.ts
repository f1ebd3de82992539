import * as z from 'zod';

/**
 * A network profile's `spec`: what the agent's link emulator reads
 * (device-agent/src/iotsecbench_agent/netemu/profile.py; docs/network-emulation.md#profiles).
 * The generated type says `unknown` (a JSONField), so the page parses it with this schema.
 * The limits are the agent's: the server checks them again, with netem's cross-field rules
 * (a distribution needs jitter, reordering needs a delay, a table needs its µ), which this
 * schema leaves to it so there is one source of truth for netem's semantics.
 */

export const DISTRIBUTIONS = ['normal', 'pareto', 'paretonormal', 'uniform', 'table'] as const;
export type Distribution = (typeof DISTRIBUTIONS)[number];
/** tc-netem(8) and tcset default to normal (the agent's DEFAULT_DISTRIBUTION). */
export const DEFAULT_DISTRIBUTION: Distribution = 'normal';

/** netem's default queue: packets held (delayed or queued) per direction before tail drop. */
export const DEFAULT_LIMIT = 1000;
// The agent's bounds (profile.py): larger figures are unit slips, not intentions.
export const MAX_RATE_KBIT = 10_000_000;
export const MAX_DELAY_MS = 60_000;
export const MAX_LIMIT = 100_000;

export const SHAPED_DIRECTIONS = ['egress', 'ingress'] as const;
export type ShapedDirection = (typeof SHAPED_DIRECTIONS)[number];

export const TABLE_REQUIRED_MESSAGE = 'Choose a measured table.';

const number = (label: string, max: number, unit: string) =>
  z
    .number({ error: `${label} must be a number (${unit}).` })
    .min(0, { error: `${label} must be at least 0 ${unit}.` })
    .max(max, { error: `${label} must be at most ${max.toLocaleString('en')} ${unit}.` });

const percent = (label: string) => number(label, 100, '%');

export const gilbertElliottSchema = z.object({
  p_pct: percent('p'),
  r_pct: percent('r').optional(),
  one_minus_h_pct: percent('1-h').optional(),
  one_minus_k_pct: percent('1-k').optional(),
});

export type GilbertElliott = z.infer<typeof gilbertElliottSchema>;

export const directionSpecSchema = z
  .object({
    rate_kbit: number('The rate', MAX_RATE_KBIT, 'kbit/s').optional(),
    delay_ms: number('The delay', MAX_DELAY_MS, 'ms').optional(),
    jitter_ms: number('The jitter', MAX_DELAY_MS, 'ms').optional(),
    distribution: z.enum(DISTRIBUTIONS, { error: 'Choose a distribution.' }).optional(),
    table: z.string().optional(),
    loss_pct: percent('Loss').optional(),
    loss_gemodel: gilbertElliottSchema.optional(),
    duplicate_pct: percent('Duplication').optional(),
    reorder_pct: percent('Reordering').optional(),
    corrupt_pct: percent('Corruption').optional(),
    limit: z
      .number({ error: 'The queue limit must be a whole number of packets.' })
      .int({ error: 'The queue limit must be a whole number of packets.' })
      .min(1, { error: 'The queue limit must be at least 1 packet.' })
      .max(MAX_LIMIT, { error: `The queue limit must be at most ${MAX_LIMIT.toLocaleString('en')} packets.` })
      .optional(),
  })
  .strict()
  .superRefine((direction, ctx) => {
    if (direction.distribution === 'table' && !direction.table) {
      ctx.addIssue({ code: 'custom', path: ['table'], message: TABLE_REQUIRED_MESSAGE });
    }
  });

export type DirectionSpec = z.infer<typeof directionSpecSchema>;

/** `{}` (unshaped), `{"both": …}`, or `{"egress"?: …, "ingress"?: …}`. */
export const linkSpecSchema = z.union([
  z.object({ both: directionSpecSchema }).strict(),
  z.object({ egress: directionSpecSchema.optional(), ingress: directionSpecSchema.optional() }).strict(),
]);

export type LinkSpec = z.infer<typeof linkSpecSchema>;

/** The spec a profile answered with, or null when it is not one this page can read. */
export const parseLinkSpec = (spec: unknown): LinkSpec | null => {
  const parsed = linkSpecSchema.safeParse(spec);
  return parsed.success ? parsed.data : null;
};

/** The names of the measured tables a spec uses (distribution "table"). */
export const tablesOf = (spec: LinkSpec | null): string[] => {
  if (!spec) return [];
  const directions = 'both' in spec ? [spec.both] : [spec.egress, spec.ingress];
  return directions.flatMap((d) => (d?.distribution === 'table' && d.table ? [d.table] : []));
};
