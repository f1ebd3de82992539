import Plotly, { type Config, type ModeBarButton } from 'plotly.js-dist-min';
import { useEffect, useRef } from 'react';
import { useErrorBoundary } from 'react-error-boundary';

import type { Figure } from './figures';

/**
 * The only module that imports plotly.js. It is large (~4 MB), so it is loaded lazily
 * through ./lazy-plotly-figure and ends up in its own chunk. Tests replace this module
 * (the seam) because Plotly cannot render in jsdom.
 */

/** Downloads are named after the app; the browser adds " (1)" etc. to repeats. */
export const IMAGE_FILENAME = 'iotsecbench-chart';

/**
 * Plotly's built-in "Download plot as a PNG" button covers one format; this second button
 * saves the same figure as SVG, the vector format a paper wants.
 */
export const SVG_DOWNLOAD_BUTTON: ModeBarButton = {
  name: 'downloadSvg',
  title: 'Download plot as SVG',
  icon: Plotly.Icons.disk,
  click: (graph) => {
    void Plotly.downloadImage(graph, { format: 'svg', filename: IMAGE_FILENAME });
  },
};

/**
 * The one config of every chart: PNG (built-in button) and SVG (ours) downloads, and nothing
 * that sends the data to Plotly's cloud: no logo link, and plotly.js 4 adds its cloud button
 * ("sendDataToCloud") only when `showSendToCloud` is set, which this config never does.
 */
export const PLOT_CONFIG: Partial<Config> = {
  responsive: true,
  displaylogo: false,
  toImageButtonOptions: { format: 'png', filename: IMAGE_FILENAME, scale: 2 },
  modeBarButtonsToAdd: [SVG_DOWNLOAD_BUTTON],
};

export type PlotlyFigureProps = Figure & {
  /** `plotly_relayout` events (zoom, pan, autoscale), as Plotly's flat key → value object. */
  onRelayout?: (event: Readonly<Record<string, unknown>>) => void;
};

export default function PlotlyFigure({ data, layout, onRelayout }: PlotlyFigureProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const { showBoundary } = useErrorBoundary();
  // The listener calls whatever callback is current, so it need not follow prop changes.
  const onRelayoutRef = useRef(onRelayout);

  useEffect(() => {
    onRelayoutRef.current = onRelayout;
  }, [onRelayout]);

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    // Plotly.react diffs against what is already drawn, so refetches are cheap.
    // Its failures are async: hand them to the panel's ErrorBoundary explicitly.
    Plotly.react(container, data, layout, PLOT_CONFIG)
      .then((graph) => {
        // Re-attached after every draw, replacing the last one: Plotly.purge (an unmount, or
        // StrictMode's mount-unmount-mount) drops the graph's emitter, and a later draw makes
        // a new one. The emitter is gone altogether if the purge came after this draw.
        if (typeof graph.on !== 'function') return;
        graph.removeAllListeners('plotly_relayout');
        graph.on('plotly_relayout', (event) => onRelayoutRef.current?.(event as Record<string, unknown>));
      })
      .catch(showBoundary);
  }, [data, layout, showBoundary]);

  useEffect(() => {
    const container = containerRef.current;
    return () => {
      // Frees Plotly's listeners and WebGL contexts when the panel unmounts.
      if (container) Plotly.purge(container);
    };
  }, []);

  return <div ref={containerRef} className="plotly-figure" />;
}
