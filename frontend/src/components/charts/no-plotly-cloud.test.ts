import { describe, expect, it } from 'vitest';

import { plotConfig } from './plotly-figure';

// Every source file of the app, as text: a cloud button or link added anywhere fails here.
const sources = import.meta.glob<string>(['/src/**/*.{ts,tsx}', '!/src/**/*.test.{ts,tsx}'], {
  query: '?raw',
  import: 'default',
  eager: true,
});

// Plotly's options and words that send a chart to Plotly's cloud (Chart Studio).
const CLOUD_MARKERS = [/showSendToCloud\s*:\s*true/, /showEditInChartStudio\s*:\s*true/, /share chart/i, /chart-studio\.plotly\.com|plot\.ly\//i];

describe('Plotly cloud', () => {
  it('should turn off and remove the "Share chart" cloud button in every chart config', () => {
    const config = plotConfig('some-run-some-chart');
    expect(config.showSendToCloud).toBe(false);
    // plotly.js 1.x's Chart Studio link: never turned on.
    expect((config as Record<string, unknown>).showEditInChartStudio).not.toBe(true);
    expect(config.displaylogo).toBe(false);
    expect(config.modeBarButtonsToRemove).toContain('sendChartToCloud');
    expect(config.plotlyServerURL ?? '').toBe('');
  });

  it('should not offer "Share chart" or turn on a cloud button anywhere in the app', () => {
    const files = Object.entries(sources);
    expect(files.length).toBeGreaterThan(50);
    const offending = files.flatMap(([path, text]) =>
      CLOUD_MARKERS.filter((marker) => marker.test(text)).map((marker) => `${path}: ${String(marker)}`),
    );
    expect(offending).toEqual([]);
  });
});
