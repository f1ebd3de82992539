import { describe, expect, it } from 'vitest';

import type { MechanismInfo } from '@/types/api';

import { benchMechanisms, groupByFamily, labelOf } from './catalogue';

const mechanism = (name: string, family: string): MechanismInfo => ({
  name,
  label: name.toUpperCase(),
  family,
  kind: 'cipher',
  key_bits: null,
});

const none = mechanism('none', 'None');
const aes = mechanism('aes-128-cbc', 'AES');
const nul = mechanism('null', 'None');
const des = mechanism('des-cbc', 'DES');

describe('groupByFamily', () => {
  it('should keep the catalogue order of families and of their members', () => {
    expect(groupByFamily([none, aes, nul, des])).toEqual([
      { family: 'None', mechanisms: [none, nul] },
      { family: 'AES', mechanisms: [aes] },
      { family: 'DES', mechanisms: [des] },
    ]);
  });
});

describe('benchMechanisms', () => {
  it('should leave out "none" but keep the "null" floor', () => {
    expect(benchMechanisms([none, nul, aes])).toEqual([nul, aes]);
  });
});

describe('labelOf', () => {
  it('should fall back to the name when the catalogue is missing or does not know it', () => {
    expect(labelOf([aes], 'aes-128-cbc')).toBe('AES-128-CBC');
    expect(labelOf([aes], 'rot13')).toBe('rot13');
    expect(labelOf(undefined, 'aes-128-cbc')).toBe('aes-128-cbc');
  });
});
