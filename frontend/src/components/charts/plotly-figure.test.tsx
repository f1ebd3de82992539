import { render } from '@testing-library/react';
import type { Config, ModeBarButton, PlotlyHTMLElement } from 'plotly.js-dist-min';
import { ErrorBoundary } from 'react-error-boundary';
import { describe, expect, it, vi } from 'vitest';

import { ChartPanel } from './chart-panel';
import { ChartSubject } from './chart-title';
import PlotlyFigure, { IMAGE_FILENAME } from './plotly-figure';

// Plotly cannot draw in jsdom: record what the wrapper hands it instead.
const plotly = vi.hoisted(() => ({
  react: vi.fn((_root: unknown, _data: unknown, _layout: unknown, _config: unknown) => Promise.resolve({})),
  purge: vi.fn(),
  downloadImage: vi.fn((_root: unknown, _options: unknown) => Promise.resolve('')),
  Icons: { disk: { width: 1, height: 1, path: 'M0 0' } },
}));
vi.mock('plotly.js-dist-min', () => ({ default: plotly }));

const drawnLayout = (): { title?: { text?: string } } => {
  const call = plotly.react.mock.calls.at(-1);
  if (!call) throw new Error('Plotly.react was not called');
  return call[2] as { title?: { text?: string } };
};

const drawnConfig = (): Partial<Config> => {
  const call = plotly.react.mock.calls.at(-1);
  if (!call) throw new Error('Plotly.react was not called');
  return call[3] as Partial<Config>;
};

/** Clicks the figure's SVG button and checks the file name Plotly is asked to save under. */
const expectSvgSavedAs = (config: Partial<Config>, filename: string) => {
  const svgButton = (config.modeBarButtonsToAdd ?? []).find(
    (button): button is ModeBarButton => typeof button !== 'string' && button.name === 'downloadSvg',
  );
  const graph = document.createElement('div') as unknown as PlotlyHTMLElement;
  svgButton?.click(graph, new MouseEvent('click'));
  expect(plotly.downloadImage).toHaveBeenLastCalledWith(graph, { format: 'svg', filename });
};

describe('PlotlyFigure', () => {
  it('should offer every chart as a PNG download and as an SVG download', () => {
    render(
      <ErrorBoundary fallback={null}>
        <PlotlyFigure data={[{ type: 'bar', x: [1], y: [2] }]} layout={{}} />
      </ErrorBoundary>,
    );

    const config = drawnConfig();
    // The built-in camera button saves PNG.
    expect(config.toImageButtonOptions).toMatchObject({ format: 'png' });
    expect(config.modeBarButtonsToRemove ?? []).not.toContain('toImage');
    // Our own button saves SVG through the same figure.
    const svgButton = (config.modeBarButtonsToAdd ?? []).find(
      (button): button is ModeBarButton => typeof button !== 'string' && button.name === 'downloadSvg',
    );
    expect(svgButton?.title).toBe('Download plot as SVG');
    const graph = document.createElement('div') as unknown as PlotlyHTMLElement;
    svgButton?.click(graph, new MouseEvent('click'));
    expect(plotly.downloadImage).toHaveBeenCalledWith(graph, expect.objectContaining({ format: 'svg' }));
  });

  it('should name both downloads after the figure and never offer the Plotly cloud', () => {
    render(
      <ErrorBoundary fallback={null}>
        <PlotlyFigure
          data={[{ type: 'bar', x: [1], y: [2] }]}
          layout={{ title: { text: 'AES matrix: median per payload_size' } }}
          imageName="AES matrix: median per payload_size (95 % intervals)"
        />
      </ErrorBoundary>,
    );

    const config = drawnConfig();
    const filename = 'aes-matrix-median-per-payload-size-95-intervals';
    expect(config.toImageButtonOptions).toMatchObject({ format: 'png', filename });
    expect(config.displaylogo).toBe(false);
    expect(config.showSendToCloud ?? false).toBe(false);
    expectSvgSavedAs(config, filename);
    expect(filename).not.toBe(IMAGE_FILENAME);
  });

  it("should put the chart's title and the run's label in a download's image and file name", () => {
    render(
      <ChartSubject subject="MQTT QoS 1 · AES-128-CBC">
        <ChartPanel label="Round-trip time histogram">
          <PlotlyFigure data={[{ type: 'bar', x: [1], y: [2] }]} layout={{}} />
        </ChartPanel>
      </ChartSubject>,
    );

    expect(drawnLayout().title?.text).toBe('Round-trip time histogram — MQTT QoS 1 · AES-128-CBC');
    const config = drawnConfig();
    const filename = 'mqtt-qos-1-aes-128-cbc-round-trip-time-histogram';
    expect(config.toImageButtonOptions).toMatchObject({ format: 'png', filename });
    expectSvgSavedAs(config, filename);
  });
});
