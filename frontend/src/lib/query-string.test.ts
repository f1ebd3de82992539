import { describe, expect, it } from 'vitest';

import { toQueryString } from './query-string';

describe('toQueryString', () => {
  it('should leave out unset values and repeat list parameters', () => {
    expect(
      toQueryString({ trace: ['a', 'b'], capacity_wh: 50, run: null, device: undefined, kind: '', start: Number.NaN }),
    ).toBe('?trace=a&trace=b&capacity_wh=50');
  });

  it('should encode values and give an empty string when nothing is set', () => {
    expect(toQueryString({ name: 'idle pi 3', ok: true })).toBe('?name=idle+pi+3&ok=true');
    expect(toQueryString({ run: null })).toBe('');
  });
});
