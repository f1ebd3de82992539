import { describe, expect, it } from 'vitest';

import type { PowerParseSpec } from '@/types/api';

import {
  columnOptions,
  delimiterOptions,
  formatOptions,
  needsSupplyVoltage,
  specToFormValues,
  splitServerSpecErrors,
  validateSpecForm,
} from './parse-spec-values';

const ppk2 = {
  format: 'ppk2',
  delimiter: ',',
  decimal_comma: false,
  skip_lines: 1,
  time: { column: 0, unit: 'ms', datetime_format: null, timezone: 'UTC' },
  sample_rate_hz: null,
  voltage: null,
  current: { column: 1, unit: 'uA' },
  power: null,
  supply_voltage_v: 5,
} satisfies PowerParseSpec;

describe('specToFormValues and validateSpecForm', () => {
  it('should give back the spec it was filled from', () => {
    expect(validateSpecForm(specToFormValues(ppk2))).toEqual({ ok: true, spec: ppk2 });
  });

  it('should use a fixed sample rate instead of a time column', () => {
    const values = { ...specToFormValues(ppk2), time_mode: 'rate' as const, sample_rate_hz: '100000' };
    expect(validateSpecForm(values)).toEqual({ ok: true, spec: { ...ppk2, time: null, sample_rate_hz: 100_000 } });
    // And reads such a spec back as "rate".
    expect(specToFormValues({ ...ppk2, time: null, sample_rate_hz: 50 })).toMatchObject({
      time_mode: 'rate',
      sample_rate_hz: '50',
    });
  });

  it('should require the supply voltage for a current-only log', () => {
    const result = validateSpecForm({ ...specToFormValues(ppk2), supply_voltage_v: '' });
    expect(result).toEqual({
      ok: false,
      errors: {
        supply_voltage_v: [
          'Enter the supply voltage: without a voltage or power column, power is current × supply voltage.',
        ],
      },
    });
    // Not once a voltage column gives it.
    expect(validateSpecForm({ ...specToFormValues(ppk2), supply_voltage_v: '', voltage_column: '2' }).ok).toBe(true);
  });

  it('should ask for power or current, a time source and a datetime format, next to their fields', () => {
    const result = validateSpecForm({
      ...specToFormValues(ppk2),
      current_column: '',
      time_column: '',
      skip_lines: '-1',
    });
    expect(result).toEqual({
      ok: false,
      errors: {
        skip_lines: ['Lines to skip cannot be negative.'],
        time_column: ['Choose a column.'],
        power_column: ['Map a power column, a current column, or voltage and current columns.'],
      },
    });
    const datetime = validateSpecForm({ ...specToFormValues(ppk2), time_unit: 'datetime', timezone: ' ' });
    expect(datetime).toEqual({
      ok: false,
      errors: {
        timezone: ['Enter a time zone, e.g. UTC or Europe/London.'],
        datetime_format: ['Enter the format of the timestamps, e.g. %Y-%m-%d %H:%M:%S.%f.'],
      },
    });
  });

  it('should refuse a column mapped twice and a sample rate that is not positive', () => {
    const twice = validateSpecForm({ ...specToFormValues(ppk2), power_column: '1' });
    expect(twice).toEqual({ ok: false, errors: { power_column: ['This column is already the current column.'] } });
    const rate = validateSpecForm({ ...specToFormValues(ppk2), time_mode: 'rate', sample_rate_hz: '0' });
    expect(rate).toEqual({ ok: false, errors: { sample_rate_hz: ['The sample rate must be greater than 0.'] } });
  });
});

describe('splitServerSpecErrors', () => {
  it("should put the server's messages next to their fields and keep the rest for the form", () => {
    const values = specToFormValues(ppk2);
    expect(
      splitServerSpecErrors(
        { current: ['Unknown unit.'], time: ['Column 9 does not exist.'], non_field_errors: ['Bad spec.'] },
        values,
      ),
    ).toEqual({
      byField: { current_column: ['Unknown unit.'], time_column: ['Column 9 does not exist.'] },
      other: ['Bad spec.'],
    });
    expect(splitServerSpecErrors({ time: ['Give a time.'] }, { ...values, time_mode: 'rate' }).byField).toEqual({
      sample_rate_hz: ['Give a time.'],
    });
  });
});

describe('options', () => {
  it('should name columns by header, numbering missing and repeated names', () => {
    expect(
      columnOptions({ header: ['Time(ms)', 'I', 'I'], preview: [['0', '1', '2', '3']] }).map((o) => o.label),
    ).toEqual(['Time(ms)', 'Column 2 (I)', 'Column 3 (I)', 'Column 4']);
  });

  it('should offer the detected format first, its alternatives, then custom, each once', () => {
    const options = formatOptions(
      { format: 'monsoon', label: 'Monsoon Power Monitor CSV', alternatives: [{ format: 'custom', label: 'Other CSV' }] },
      'monsoon',
    );
    expect(options).toEqual([
      { value: 'monsoon', label: 'Monsoon Power Monitor CSV (detected)' },
      { value: 'custom', label: 'Other CSV' },
    ]);
  });

  it('should add an unusual delimiter to the usual ones', () => {
    expect(delimiterOptions(',').map((o) => o.value)).toEqual([',', ';', '\t', ' ', '|']);
    expect(delimiterOptions(':').at(-1)).toEqual({ value: ':', label: '":"' });
  });
});

describe('needsSupplyVoltage', () => {
  const currentOnly = specToFormValues({
    format: 'ppk2',
    delimiter: ',',
    decimal_comma: false,
    skip_lines: 1,
    time: { column: 0, unit: 'ms', datetime_format: null, timezone: 'UTC' },
    sample_rate_hz: null,
    voltage: null,
    current: { column: 1, unit: 'uA' },
    power: null,
    supply_voltage_v: null,
  });

  it('should ask for the supply voltage of a current-only mapping', () => {
    expect(needsSupplyVoltage(currentOnly)).toBe(true);
  });

  it('should stop asking once the supply voltage is typed', () => {
    expect(needsSupplyVoltage({ ...currentOnly, supply_voltage_v: '3.3' })).toBe(false);
  });

  it('should not ask when a voltage or power column is mapped', () => {
    expect(needsSupplyVoltage({ ...currentOnly, voltage_column: '2' })).toBe(false);
    expect(needsSupplyVoltage({ ...currentOnly, power_column: '2' })).toBe(false);
  });
});
