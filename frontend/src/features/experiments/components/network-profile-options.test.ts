import { describe, expect, it } from 'vitest';

import { networkProfileOptions, type NetworkProfileChoice } from './network-profile-options';

const profile = (id: string, kind: NetworkProfileChoice['kind']): NetworkProfileChoice => ({ id, name: id.toUpperCase(), kind });

describe('networkProfileOptions', () => {
  it('should offer none first, then SRUP conditions, measured tables and the workspace’s own, each in list order', () => {
    // As the list API answers: the workspace's own first, then the catalogue.
    const options = networkProfileOptions([
      profile('mine-a', 'user'),
      profile('mine-b', 'user'),
      profile('srup-1', 'builtin_condition'),
      profile('srup-5', 'builtin_condition'),
      profile('table-x', 'measured_table'),
    ]);

    expect(options).toEqual([
      { value: '', label: 'None (no shaping)' },
      {
        label: 'SRUP conditions (built-in)',
        options: [
          { value: 'srup-1', label: 'SRUP-1' },
          { value: 'srup-5', label: 'SRUP-5' },
        ],
      },
      { label: 'Measured tables (built-in)', options: [{ value: 'table-x', label: 'TABLE-X' }] },
      {
        label: 'Your workspace',
        options: [
          { value: 'mine-a', label: 'MINE-A' },
          { value: 'mine-b', label: 'MINE-B' },
        ],
      },
    ]);
  });

  it('should leave out empty groups and offer only none without profiles', () => {
    expect(networkProfileOptions([profile('srup-1', 'builtin_condition')]).map((o) => o.label)).toEqual([
      'None (no shaping)',
      'SRUP conditions (built-in)',
    ]);
    expect(networkProfileOptions([])).toEqual([{ value: '', label: 'None (no shaping)' }]);
  });
});
