import { describe, expect, it } from 'vitest';

import { describeInterval } from './interval-spec';

describe('describeInterval', () => {
  it('should give the distribution, mean and seed of random intervals', () => {
    expect(describeInterval({ interval_distribution: 'exponential', interval_ms: 500, interval_seed: 123 })).toBe(
      'Interval: exponential, mean 500 ms, seed 123',
    );
    expect(describeInterval({ interval_distribution: 'uniform', interval_ms: 0, interval_seed: 0 })).toBe(
      'Interval: uniform, mean 0 ms, seed 0',
    );
  });

  it('should leave the seed out of a fixed interval', () => {
    expect(describeInterval({ interval_distribution: 'fixed', interval_ms: 250, interval_seed: 7 })).toBe(
      'Interval: fixed, 250 ms',
    );
  });

  it('should be null for a spec without a distribution', () => {
    expect(describeInterval({})).toBeNull();
    expect(describeInterval({ interval_ms: 500 })).toBeNull();
    expect(describeInterval({ interval_distribution: 3 })).toBeNull();
    expect(describeInterval({ interval_distribution: '' })).toBeNull();
  });

  it('should leave out a missing or malformed interval or seed', () => {
    expect(describeInterval({ interval_distribution: 'exponential' })).toBe('Interval: exponential');
    expect(
      describeInterval({ interval_distribution: 'exponential', interval_ms: '500', interval_seed: 1.5 }),
    ).toBe('Interval: exponential');
    expect(describeInterval({ interval_distribution: 'uniform', interval_ms: 100, interval_seed: null })).toBe(
      'Interval: uniform, mean 100 ms',
    );
  });
});
