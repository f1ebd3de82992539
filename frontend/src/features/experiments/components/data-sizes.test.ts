import { describe, expect, it } from 'vitest';

import { parseDataSize, parseDataSizes } from './data-sizes';

describe('parseDataSize', () => {
  it('should read plain bytes and 1024-based suffixes in any case', () => {
    expect(parseDataSize('16')).toBe(16);
    expect(parseDataSize('1K')).toBe(1024);
    expect(parseDataSize('8k')).toBe(8192);
    expect(parseDataSize('1M')).toBe(1024 ** 2);
    expect(parseDataSize('1g')).toBe(1024 ** 3);
  });

  it('should accept the units the app displays and spaces before them', () => {
    expect(parseDataSize('16 B')).toBe(16);
    expect(parseDataSize('8 KiB')).toBe(8192);
    expect(parseDataSize('2MB')).toBe(2 * 1024 ** 2);
    expect(parseDataSize('  4 K ')).toBe(4096);
  });

  it('should accept decimals only when they make whole bytes', () => {
    expect(parseDataSize('1.5K')).toBe(1536);
    expect(parseDataSize('0.5')).toBeNull();
    expect(parseDataSize('1.1K')).toBeNull();
  });

  it('should reject anything that is not a size', () => {
    for (const entry of ['', 'K', '-1', '1T', '1 KK', '1e3', '0x10', 'ten', '1,5']) {
      expect(parseDataSize(entry)).toBeNull();
    }
  });

  it('should leave zero to the range check', () => {
    expect(parseDataSize('0')).toBe(0);
  });
});

describe('parseDataSizes', () => {
  it('should read a comma-separated list in the order typed', () => {
    expect(parseDataSizes('16, 1K, 8K, 1M')).toEqual({ ok: true, sizes: [16, 1024, 8192, 1024 ** 2] });
    expect(parseDataSizes('1M,16')).toEqual({ ok: true, sizes: [1024 ** 2, 16] });
  });

  it('should skip empty entries such as a trailing comma', () => {
    expect(parseDataSizes('16, ,1K,')).toEqual({ ok: true, sizes: [16, 1024] });
    expect(parseDataSizes('   ')).toEqual({ ok: true, sizes: [] });
  });

  it('should name every invalid entry', () => {
    expect(parseDataSizes('16, 12Q, 1K, abc')).toEqual({
      ok: false,
      error: 'Not a size: "12Q", "abc". Use whole bytes, optionally with K, M or G (e.g. 16, 1K, 8K, 1M).',
    });
  });
});
