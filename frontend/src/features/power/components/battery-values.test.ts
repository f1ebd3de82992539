import { describe, expect, it } from 'vitest';

import { batteryJoules, validateBatteryForm } from './battery-values';

describe('battery gauge values', () => {
  it('should turn mAh at a voltage into joules by the paper rule', () => {
    // The MQTT vs CoAP paper: J = mAh × 3.6 × 3.82.
    expect(batteryJoules(10, 3.82)).toBeCloseTo(137.52, 6);
  });

  it('should give the API input with the run and no device for the run as a whole', () => {
    const validated = validateBatteryForm('run-1', { device: '', charge_mah: '0.5', voltage_v: '3.82' });
    expect(validated).toEqual({
      ok: true,
      input: { run: 'run-1', device: null, charge_mah: 0.5, voltage_v: 3.82 },
    });
  });

  it('should name the fields that are not positive numbers in range', () => {
    const validated = validateBatteryForm('run-1', { device: 'd', charge_mah: '0', voltage_v: '230' });
    expect(validated.ok).toBe(false);
    if (validated.ok) return;
    expect(validated.errors.charge_mah).toEqual(['The charge must be more than 0 mAh.']);
    expect(validated.errors.voltage_v).toEqual(['The voltage must be at most 60 V.']);
  });

  it('should refuse an empty charge with a clear message', () => {
    const validated = validateBatteryForm('run-1', { device: '', charge_mah: ' ', voltage_v: '3.7' });
    expect(validated.ok ? null : validated.errors.charge_mah).toEqual(['The charge must be a number of mAh.']);
  });
});
