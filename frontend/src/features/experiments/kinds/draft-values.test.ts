import { describe, expect, it } from 'vitest';

import { fillDraft, toNumber } from './draft-values';

describe('toNumber', () => {
  it('should read a typed number, and an empty or blank field as NaN', () => {
    expect(toNumber(' 42 ')).toBe(42);
    expect(toNumber('')).toBeNaN();
    expect(toNumber('  ')).toBeNaN();
  });
});

describe('fillDraft', () => {
  const draft = { mechanisms: ['none'], data_sizes: '1, 1280', repetitions: '10' };

  it('should take the values the design sets, as the form holds them, and keep the rest', () => {
    expect(fillDraft(draft, { mechanisms: ['aes-128-cbc', 'present-80-cbc'], data_sizes: [16, 1024], protocol: 'mqtt' })).toEqual({
      mechanisms: ['aes-128-cbc', 'present-80-cbc'],
      data_sizes: '16, 1024',
      repetitions: '10',
    });
    expect(fillDraft(draft, { repetitions: 3 }).repetitions).toBe('3');
  });

  it('should empty a list field the design sets to something other than a list', () => {
    expect(fillDraft(draft, { mechanisms: 'aes-128-cbc' }).mechanisms).toEqual([]);
  });

  it('should return a copy: changing it leaves the defaults as they were', () => {
    const filled = fillDraft(draft, {});
    filled.mechanisms.push('aes-128-cbc');
    expect(draft.mechanisms).toEqual(['none']);
  });
});
