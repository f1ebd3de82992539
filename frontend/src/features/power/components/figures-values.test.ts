import { describe, expect, it } from 'vitest';

import { defaultWindow, initialFiguresValues, validateFiguresForm } from './figures-values';

const runTrace = { run_window: { start_s: 1.5, end_s: 31.5 }, duration_s: 120 };
const loneTrace = { run_window: null, duration_s: 120 };

describe('defaultWindow and initialFiguresValues', () => {
  it('should start from the run window, else the whole trace', () => {
    expect(defaultWindow(runTrace)).toEqual({ start_s: 1.5, end_s: 31.5 });
    expect(defaultWindow(loneTrace)).toEqual({ start_s: 0, end_s: 120 });
    expect(initialFiguresValues(runTrace)).toMatchObject({ start: '1.5', end: '31.5', baseline_mode: 'none' });
    // Without binary noise: 0.0016 s, not 0.0015999999999999999 s.
    expect(initialFiguresValues({ run_window: null, duration_s: 0.0015999999999999999 }).end).toBe('0.0016');
  });
});

describe('validateFiguresForm', () => {
  it('should send a constant current in amps, and only the chosen baseline', () => {
    const result = validateFiguresForm({
      ...initialFiguresValues(runTrace),
      baseline_mode: 'current',
      baseline_ma: '250',
      baseline_w: '9',
      reference_trace: 'ref-1',
    });
    expect(result).toEqual({
      ok: true,
      params: {
        start: 1.5,
        end: 31.5,
        baseline_w: null,
        baseline_current_a: 0.25,
        baseline_trace: null,
        reference_trace: 'ref-1',
      },
    });
  });

  it('should send a baseline trace or a constant power', () => {
    const values = initialFiguresValues(loneTrace);
    expect(validateFiguresForm({ ...values, baseline_mode: 'trace', baseline_trace: 'b-1' })).toMatchObject({
      ok: true,
      params: { start: 0, end: 120, baseline_trace: 'b-1', reference_trace: null },
    });
    expect(validateFiguresForm({ ...values, baseline_mode: 'power', baseline_w: '1.31' })).toMatchObject({
      ok: true,
      params: { baseline_w: 1.31, baseline_current_a: null },
    });
  });

  it('should explain a backwards window and a missing baseline value', () => {
    expect(
      validateFiguresForm({ ...initialFiguresValues(runTrace), start: '40', baseline_mode: 'power', baseline_w: '' }),
    ).toEqual({
      ok: false,
      errors: { baseline_w: ['The baseline power must be a number.'], end: ['The end must come after the start.'] },
    });
    expect(validateFiguresForm({ ...initialFiguresValues(runTrace), baseline_mode: 'trace' })).toEqual({
      ok: false,
      errors: { baseline_trace: ['Choose a baseline trace.'] },
    });
  });
});
