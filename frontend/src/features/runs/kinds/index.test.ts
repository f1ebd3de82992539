import { describe, expect, it } from 'vitest';

import { RUN_KIND_RESULTS } from '.';

describe('RUN_KIND_RESULTS', () => {
  it('draws the results of every kind', () => {
    expect(Object.keys(RUN_KIND_RESULTS).sort()).toEqual(['cipher_bench', 'messaging', 'throughput']);
    for (const entry of Object.values(RUN_KIND_RESULTS)) expect(entry.Results).toBeTypeOf('function');
  });
});
