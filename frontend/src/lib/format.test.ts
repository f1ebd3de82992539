import { describe, expect, it } from 'vitest';

import {
  formatBytes,
  formatDataSize,
  formatDateTime,
  formatDecimal,
  formatDuration,
  formatFactor,
  formatMs,
  MISSING,
} from './format';

describe('formatMs', () => {
  it('should show exactly three decimals', () => {
    expect(formatMs(1)).toBe('1.000');
    expect(formatMs(12.34567)).toBe('12.346');
    expect(formatMs(0)).toBe('0.000');
  });

  it('should show a dash when there is no value', () => {
    expect(formatMs(null)).toBe(MISSING);
    expect(formatMs(undefined)).toBe(MISSING);
    expect(formatMs(Number.NaN)).toBe(MISSING);
  });
});

describe('formatDecimal', () => {
  it('should show the requested number of decimals', () => {
    expect(formatDecimal(1.23456)).toBe('1.235');
    expect(formatDecimal(1.23456, 1)).toBe('1.2');
    expect(formatDecimal(null)).toBe(MISSING);
  });
});

describe('formatFactor', () => {
  it('should show a ratio with two decimals and a times sign', () => {
    expect(formatFactor(1)).toBe('1.00×');
    expect(formatFactor(2.345678)).toBe('2.35×');
    expect(formatFactor(0.5, 1)).toBe('0.5×');
  });

  it('should show a dash, without a times sign, when there is no value', () => {
    expect(formatFactor(null)).toBe(MISSING);
    expect(formatFactor(undefined)).toBe(MISSING);
    expect(formatFactor(Number.POSITIVE_INFINITY)).toBe(MISSING);
  });
});

describe('formatDataSize', () => {
  it('should use the largest binary unit that divides the size exactly', () => {
    expect(formatDataSize(16)).toBe('16 B');
    expect(formatDataSize(8192)).toBe('8 KiB');
    expect(formatDataSize(1024 ** 2)).toBe('1 MiB');
    expect(formatDataSize(3 * 1024 ** 3)).toBe('3 GiB');
    expect(formatDataSize(0)).toBe('0 B');
  });

  it('should keep sizes that are not a whole number of units in bytes', () => {
    expect(formatDataSize(1536)).toBe('1536 B');
    expect(formatDataSize(1_000_000)).toBe('1000000 B');
    expect(formatDataSize(1024 ** 2 + 1024)).toBe('1025 KiB');
  });

  it('should show a dash for missing or invalid sizes', () => {
    expect(formatDataSize(null)).toBe(MISSING);
    expect(formatDataSize(-1)).toBe(MISSING);
    expect(formatDataSize(1.5)).toBe(MISSING);
  });
});

describe('formatBytes', () => {
  it('should use binary units', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1024)).toBe('1.0 KiB');
    expect(formatBytes(4 * 1024 ** 3)).toBe('4.0 GiB');
  });

  it('should show a dash for missing or invalid sizes', () => {
    expect(formatBytes(null)).toBe(MISSING);
    expect(formatBytes(-1)).toBe(MISSING);
  });
});

describe('formatDateTime', () => {
  it('should show a dash for null and unparsable timestamps', () => {
    expect(formatDateTime(null)).toBe(MISSING);
    expect(formatDateTime('not a date')).toBe(MISSING);
  });

  it('should format a valid timestamp', () => {
    expect(formatDateTime('2025-01-02T03:04:05Z')).not.toBe(MISSING);
  });
});

describe('formatDuration', () => {
  it('should show seconds, then minutes and seconds, then hours and minutes', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(42_400)).toBe('42 s');
    expect(formatDuration(59_600)).toBe('1 min 00 s');
    expect(formatDuration(185_000)).toBe('3 min 05 s');
    expect(formatDuration(3_725_000)).toBe('1 h 02 min');
  });

  it('should show a dash for a negative or missing duration', () => {
    expect(formatDuration(-1)).toBe(MISSING);
    expect(formatDuration(null)).toBe(MISSING);
    expect(formatDuration(Number.NaN)).toBe(MISSING);
  });
});
