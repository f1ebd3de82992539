import { describe, expect, it } from 'vitest';

import {
  formatCount,
  formatHours,
  formatMillijoules,
  formatPercent,
  formatSeconds,
  formatWatts,
  joulesToMah,
  mahToJoules,
  mahToWh,
  milliampsToAmps,
  milliampsToWatts,
  parseNumber,
  roundTo,
} from './energy';

describe('charge and energy', () => {
  it('should turn mAh into joules at a voltage, and back', () => {
    // 1 mAh = 3.6 C; at 5 V that is 18 J.
    expect(mahToJoules(1, 5)).toBeCloseTo(18);
    expect(joulesToMah(61.2, 5)).toBeCloseTo(3.4);
    expect(joulesToMah(mahToJoules(1234, 3.7), 3.7)).toBeCloseTo(1234);
  });

  it('should give a battery capacity in Wh', () => {
    expect(mahToWh(10_000, 3.7)).toBeCloseTo(37);
  });

  it('should turn a current in mA into amps and into watts at a voltage', () => {
    expect(milliampsToAmps(250)).toBe(0.25);
    expect(milliampsToWatts(262, 5)).toBeCloseTo(1.31);
  });
});

describe('formats', () => {
  it('should show watts to mW and per-message energy in mJ', () => {
    expect(formatWatts(2.04)).toBe('2.040');
    expect(formatMillijoules(0.0876)).toBe('87.600');
    expect(formatMillijoules(null)).toBe('—');
  });

  it('should show percentages, seconds and counts', () => {
    expect(formatPercent(55.66)).toBe('55.7 %');
    expect(formatPercent(-3.04)).toBe('-3.0 %');
    expect(formatPercent(undefined)).toBe('—');
    expect(formatSeconds(31.5)).toBe('31.500 s');
    expect(formatCount(1_200_000)).toBe('1,200,000');
  });

  it('should show hours, adding days for long lives', () => {
    expect(formatHours(24.5)).toBe('24.5 h');
    expect(formatHours(100)).toBe('100.0 h (4.2 d)');
    expect(formatHours(null)).toBe('—');
  });
});

describe('parseNumber and roundTo', () => {
  it('should read typed numbers, with empty text as NaN', () => {
    expect(parseNumber(' 1.5 ')).toBe(1.5);
    expect(parseNumber('')).toBeNaN();
    expect(parseNumber('abc')).toBeNaN();
  });

  it('should round without binary noise', () => {
    expect(roundTo(0.1 + 0.2, 3)).toBe(0.3);
    expect(roundTo(-1.2 - 0.1, 3)).toBe(-1.3);
  });
});
