import { MISSING } from '@/lib/format';
import type { LinkDirection } from '@/types/api';

import {
  DEFAULT_DISTRIBUTION,
  DEFAULT_LIMIT,
  type DirectionSpec,
  type GilbertElliott,
  type LinkSpec,
} from '../api/link-spec';

import { DISTRIBUTION_LABELS } from './labels';

/** Pure helpers: a spec's directions and its figures in words. */

export type ShapedDirectionSpec = { direction: LinkDirection; spec: DirectionSpec };

/** True when a direction changes anything (the agent's DirectionProfile.shaped). */
export const isShaped = (spec: DirectionSpec | undefined): spec is DirectionSpec =>
  spec !== undefined &&
  Object.entries(spec).some(([key, value]) => {
    if (key === 'limit' || key === 'distribution' || key === 'table') return false;
    if (key === 'loss_gemodel') return value !== undefined;
    return typeof value === 'number' && value !== 0;
  });

/**
 * The directions a spec shapes, in the order a reader expects: `both` alone, or egress then
 * ingress; a direction left out (or all zeros) is not shaped and not listed.
 */
export const shapedDirections = (spec: LinkSpec): ShapedDirectionSpec[] => {
  if ('both' in spec) return isShaped(spec.both) ? [{ direction: 'both', spec: spec.both }] : [];
  return (['egress', 'ingress'] as const).flatMap((direction) => {
    const value = spec[direction];
    return isShaped(value) ? [{ direction, spec: value }] : [];
  });
};

/** Up to `decimals` decimals without trailing zeros: 46.384907 → "46.38", 20 → "20". */
export const formatFigure = (value: number, decimals = 2): string => {
  const factor = 10 ** decimals;
  return String(Math.round(value * factor) / factor);
};

export const formatDelay = (spec: DirectionSpec): string =>
  spec.delay_ms ? `${formatFigure(spec.delay_ms)} ms` : MISSING;

/** "16.42 ms, measured table", or a dash without jitter (the distribution is then moot). */
export const formatJitter = (spec: DirectionSpec): string =>
  spec.jitter_ms
    ? `${formatFigure(spec.jitter_ms)} ms, ${DISTRIBUTION_LABELS[spec.distribution ?? DEFAULT_DISTRIBUTION]}`
    : MISSING;

/** kbit = 1000 bit/s, as tc; 0 or absent is unlimited. */
export const formatRate = (spec: DirectionSpec): string =>
  spec.rate_kbit ? `${formatFigure(spec.rate_kbit)} kbit/s` : 'unlimited';

/** The stationary loss of netem's Gilbert-Elliott model, in percent (the agent's mean_loss). */
export const gilbertElliottMeanLossPct = (model: GilbertElliott): number => {
  const p = model.p_pct / 100;
  const r = (model.r_pct ?? 100 - model.p_pct) / 100;
  const lossBad = (model.one_minus_h_pct ?? 100) / 100;
  const lossGood = (model.one_minus_k_pct ?? 0) / 100;
  if (p + r === 0) return lossGood * 100; // never leaves the good state
  const bad = p / (p + r);
  return (bad * lossBad + (1 - bad) * lossGood) * 100;
};

export const formatGilbertElliott = (model: GilbertElliott): string => {
  const parts = [`p ${formatFigure(model.p_pct)} %`, `r ${formatFigure(model.r_pct ?? 100 - model.p_pct)} %`];
  if (model.one_minus_h_pct !== undefined) parts.push(`1-h ${formatFigure(model.one_minus_h_pct)} %`);
  if (model.one_minus_k_pct !== undefined) parts.push(`1-k ${formatFigure(model.one_minus_k_pct)} %`);
  return `Gilbert-Elliott (${parts.join(', ')}): ≈ ${formatFigure(gilbertElliottMeanLossPct(model))} %`;
};

export const formatLoss = (spec: DirectionSpec): string => {
  if (spec.loss_gemodel) return formatGilbertElliott(spec.loss_gemodel);
  return spec.loss_pct ? `${formatFigure(spec.loss_pct)} %` : MISSING;
};

export const formatPercent = (value: number | undefined): string =>
  value ? `${formatFigure(value)} %` : MISSING;

export const formatLimit = (spec: DirectionSpec): string =>
  `${(spec.limit ?? DEFAULT_LIMIT).toLocaleString('en')} packets`;
