import { describe, expect, it } from 'vitest';

import type { ComparedRun, RunComparison } from '@/types/api';

import { comparedRunLabel, sharedDistributionQuery, toggleRun } from './compare-data';

const run = (runId: string, min: number | null, max: number | null) =>
  ({ run_id: runId, experiment_name: 'exp', statistics: { all_devices: { min_ms: min, max_ms: max } } }) as unknown as ComparedRun;

const comparison = (runs: ComparedRun[]) => ({ runs, pairs: [] }) as unknown as RunComparison;

describe('sharedDistributionQuery', () => {
  it('should span the smallest to the largest round trip of every run', () => {
    expect(sharedDistributionQuery(comparison([run('a', 5, 20), run('b', 3, 12), run('c', null, null)]), 50)).toEqual({
      bins: 50,
      minMs: 3,
      maxMs: 20,
    });
  });

  it("should leave the range to the server when there is no spread to share", () => {
    expect(sharedDistributionQuery(comparison([run('a', 4, 4)]), 50)).toEqual({ bins: 50, minMs: null, maxMs: null });
    expect(sharedDistributionQuery(comparison([run('a', null, null)]), 50)).toEqual({ bins: 50, minMs: null, maxMs: null });
  });
});

describe('toggleRun', () => {
  it('should add a run at the end and remove one in place', () => {
    expect(toggleRun(['a', 'b'], 'c')).toEqual(['a', 'b', 'c']);
    expect(toggleRun(['a', 'b', 'c'], 'b')).toEqual(['a', 'c']);
  });
});

describe('comparedRunLabel', () => {
  it('should name a run by the label the server gives it', () => {
    expect(comparedRunLabel({ label: 'SRUP · AES-128-CBC · repeat 2' })).toBe('SRUP · AES-128-CBC · repeat 2');
  });
});
