import { describe, expect, it } from 'vitest';

import { formatBytes, formatDateTime, formatMs, MISSING } from './format';

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
