import { describe, expect, it } from 'vitest';

import { progressTimes } from './progress-estimate';

const STARTED = '2025-01-02T10:00:00Z';
const at = (seconds: number) => Date.parse(STARTED) + seconds * 1000;

describe('progressTimes', () => {
  it('should estimate the time left from the rate so far over every device', () => {
    const devices = [
      { sent: 40, total: 100 },
      { sent: 10, total: 100 },
    ];
    // 50 of 200 in 60 s: 150 more take 180 s.
    expect(progressTimes(devices, STARTED, at(60))).toEqual({ elapsedMs: 60_000, leftMs: 180_000 });
  });

  it('should not estimate before anything is done', () => {
    expect(progressTimes([{ sent: 0, total: 100 }], STARTED, at(5))).toEqual({ elapsedMs: 5000, leftMs: null });
  });

  it('should leave nothing once every device is done', () => {
    expect(progressTimes([{ sent: 100, total: 100 }], STARTED, at(30))?.leftMs).toBe(0);
  });

  it('should give no times before the run has started', () => {
    expect(progressTimes([{ sent: 0, total: 100 }], null, at(5))).toBeNull();
  });

  it('should count no negative time when the browser clock is behind', () => {
    expect(progressTimes([{ sent: 0, total: 100 }], STARTED, at(-3))?.elapsedMs).toBe(0);
  });
});
