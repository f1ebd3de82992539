import { describe, expect, it } from 'vitest';

import { EXPERIMENT_KIND_FORMS, kindForm } from '.';

describe('EXPERIMENT_KIND_FORMS', () => {
  it('has the fields of every kind', () => {
    expect(Object.keys(EXPERIMENT_KIND_FORMS).sort()).toEqual(['cipher_bench', 'messaging', 'throughput']);
    expect(kindForm('throughput')).toBe(EXPERIMENT_KIND_FORMS.throughput);
    for (const entry of Object.values(EXPERIMENT_KIND_FORMS)) expect(entry.Fields).toBeTypeOf('function');
  });
});
