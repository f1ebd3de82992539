import { describe, expect, it } from 'vitest';

import { resourceFigures } from './run-resources-data';

describe('resourceFigures', () => {
  it('should show CPU seconds with their share of the window, memory in MiB and bytes in kB', () => {
    expect(
      resourceFigures({
        window_ns: 2_000_000_000,
        cpu_user_ns: 412_000_000,
        cpu_system_ns: 88_000_000,
        peak_rss_kb: 48_128,
        peak_rss_scope: 'run',
        bytes_sent: 37_120,
        bytes_received: 36_480,
      }),
    ).toEqual({
      cpuTime: '0.500 s (user 0.412 s, system 0.088 s; 25.0 % of 2.000 s)',
      peakMemory: '47.0 MiB (during the run)',
      bytes: '37.1 kB / 36.5 kB (36.3 KiB / 35.6 KiB)',
    });
  });

  it('should say when the peak memory is the agent process’s since it started', () => {
    const figures = resourceFigures({
      window_ns: 0,
      cpu_user_ns: 0,
      cpu_system_ns: 0,
      peak_rss_kb: 1024,
      peak_rss_scope: 'process',
      bytes_sent: 0,
      bytes_received: 0,
    });
    expect(figures.peakMemory).toBe('1.0 MiB (since the agent started)');
    expect(figures.cpuTime).toBe('0.000 s (user 0.000 s, system 0.000 s; — % of 0.000 s)');
  });
});
