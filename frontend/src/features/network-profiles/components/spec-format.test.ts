import { describe, expect, it } from 'vitest';

import {
  formatJitter,
  formatLoss,
  formatRate,
  gilbertElliottMeanLossPct,
  shapedDirections,
} from './spec-format';

describe('spec format', () => {
  it('should list only the directions a spec shapes', () => {
    expect(shapedDirections({})).toEqual([]);
    expect(shapedDirections({ both: {} })).toEqual([]);
    expect(shapedDirections({ egress: { limit: 50 }, ingress: { delay_ms: 5 } })).toEqual([
      { direction: 'ingress', spec: { delay_ms: 5 } },
    ]);
  });

  it('should describe rate, jitter and loss in words', () => {
    expect(formatRate({})).toBe('unlimited');
    expect(formatRate({ rate_kbit: 384 })).toBe('384 kbit/s');
    expect(formatJitter({ jitter_ms: 40.359329, distribution: 'table' })).toBe('40.36 ms, measured table');
    expect(formatJitter({ jitter_ms: 5 })).toBe('5 ms, normal');
    expect(formatLoss({ loss_pct: 10 })).toBe('10 %');
    expect(formatLoss({ loss_gemodel: { p_pct: 2, r_pct: 30 } })).toBe('Gilbert-Elliott (p 2 %, r 30 %): ≈ 6.25 %');
  });

  it('should compute the Gilbert-Elliott mean loss as the agent does', () => {
    // Defaults r = 100 − p, 1-h = 100, 1-k = 0: Bernoulli loss of p.
    expect(gilbertElliottMeanLossPct({ p_pct: 5 })).toBeCloseTo(5);
    expect(gilbertElliottMeanLossPct({ p_pct: 0, r_pct: 0, one_minus_k_pct: 3 })).toBeCloseTo(3);
  });
});
