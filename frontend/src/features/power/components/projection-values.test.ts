import { describe, expect, it } from 'vitest';

import { capacityInWh, PROJECTION_DEFAULTS, validateProjectionForm } from './projection-values';

describe('validateProjectionForm', () => {
  it("should project this trace first, then the compared ones, on the SRUP paper's 50 Wh battery", () => {
    expect(validateProjectionForm('t1', { ...PROJECTION_DEFAULTS, compare: ['t2', 't1', 't3'] })).toEqual({
      ok: true,
      params: {
        traces: ['t1', 't2', 't3'],
        capacity: { unit: 'wh', capacity_wh: 50 },
        baseline_trace: null,
        baseline_w: null,
        baseline_current_a: null,
        rate_max_per_min: 60,
      },
    });
  });

  it('should take a capacity in mAh at a voltage, and an idle power', () => {
    const values = {
      ...PROJECTION_DEFAULTS,
      capacity_unit: 'mah' as const,
      capacity_mah: '10000',
      baseline_mode: 'power' as const,
      baseline_w: '1.2',
    };
    expect(validateProjectionForm('t1', values)).toMatchObject({
      ok: true,
      params: { capacity: { unit: 'mah', capacity_mah: 10_000, capacity_voltage_v: 3.7 }, baseline_w: 1.2 },
    });
    expect(capacityInWh(values)).toBeCloseTo(37);
    expect(capacityInWh(PROJECTION_DEFAULTS)).toBeNull();
  });

  it('should explain what is wrong next to each field', () => {
    expect(
      validateProjectionForm('t1', {
        ...PROJECTION_DEFAULTS,
        capacity_unit: 'mah',
        capacity_mah: '',
        capacity_voltage_v: '0',
        rate_max_per_min: '0',
      }),
    ).toEqual({
      ok: false,
      errors: {
        capacity_mah: ['The capacity must be a number.'],
        capacity_voltage_v: ['The voltage must be greater than 0.'],
        rate_max_per_min: ['The rate must be at least 0.1 messages per minute.'],
      },
    });
  });
});
