import Plotly, { type Config, type ModeBarButton } from 'plotly.js-dist-min';
import { useEffect, useMemo, useRef } from 'react';
import { useErrorBoundary } from 'react-error-boundary';

import type { Figure } from './figures';

/**
 * The only module that imports plotly.js. It is large (~4 MB), so it is loaded lazily
 * through ./lazy-plotly-figure and ends up in its own chunk. Tests replace this module
 * (the seam) because Plotly cannot render in jsdom.
 */

/** Downloads are named after the app; the browser adds " (1)" etc. to repeats. */
export const IMAGE_FILENAME = 'iotsecbench-chart';

/** A file name for a figure's downloads: its name in lower-case words joined by dashes. */
export const imageFilename = (name?: string): string => {
  const slug = (name ?? '')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 120)
    .replace(/-+$/, '');
  return slug || IMAGE_FILENAME;
};

/**
 * Plotly's built-in "Download plot as a PNG" button covers one format; this second button
 * saves the same figure as SVG, the vector format a paper wants.
 */
export const svgDownloadButton = (filename: string = IMAGE_FILENAME): ModeBarButton => ({
  name: 'downloadSvg',
  title: 'Download plot as SVG',
  icon: Plotly.Icons.disk,
  click: (graph) => {
    void Plotly.downloadImage(graph, { format: 'svg', filename });
  },
});

export const SVG_DOWNLOAD_BUTTON: ModeBarButton = svgDownloadButton();

/**
 * The one config of every chart: PNG (built-in button) and SVG (ours) downloads, named after
 * the figure when it has a name, and nothing that sends the data to Plotly's cloud: no logo
 * link, and plotly.js 4 adds its cloud button ("sendDataToCloud") only when
 * `showSendToCloud` is set, which this config never does. The figure's title is part of its
 * layout, so the images carry it.
 */
export const plotConfig = (filename: string = IMAGE_FILENAME): Partial<Config> => ({
  responsive: true,
  displaylogo: false,
  toImageButtonOptions: { format: 'png', filename, scale: 2 },
  modeBarButtonsToAdd: [filename === IMAGE_FILENAME ? SVG_DOWNLOAD_BUTTON : svgDownloadButton(filename)],
});

export const PLOT_CONFIG: Partial<Config> = plotConfig();

export type PlotlyFigureProps = Figure & {
  /** What the PNG and SVG downloads are named after (e.g. the figure's title). */
  imageName?: string;
  /** `plotly_relayout` events (zoom, pan, autoscale), as Plotly's flat key → value object. */
  onRelayout?: (event: Readonly<Record<string, unknown>>) => void;
};

export default function PlotlyFigure({ data, layout, onRelayout, imageName }: PlotlyFigureProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const { showBoundary } = useErrorBoundary();
  // The listener calls whatever callback is current, so it need not follow prop changes.
  const onRelayoutRef = useRef(onRelayout);

  useEffect(() => {
    onRelayoutRef.current = onRelayout;
  }, [onRelayout]);

  const config = useMemo(() => plotConfig(imageFilename(imageName)), [imageName]);

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    // Plotly.react diffs against what is already drawn, so refetches are cheap.
    // Its failures are async: hand them to the panel's ErrorBoundary explicitly.
    Plotly.react(container, data, layout, config)
      .then((graph) => {
        // Re-attached after every draw, replacing the last one: Plotly.purge (an unmount, or
        // StrictMode's mount-unmount-mount) drops the graph's emitter, and a later draw makes
        // a new one. The emitter is gone altogether if the purge came after this draw.
        if (typeof graph.on !== 'function') return;
        graph.removeAllListeners('plotly_relayout');
        graph.on('plotly_relayout', (event) => onRelayoutRef.current?.(event as Record<string, unknown>));
      })
      .catch(showBoundary);
  }, [data, layout, config, showBoundary]);

  useEffect(() => {
    const container = containerRef.current;
    return () => {
      // Frees Plotly's listeners and WebGL contexts when the panel unmounts.
      if (container) Plotly.purge(container);
    };
  }, []);

  return <div ref={containerRef} className="plotly-figure" />;
}
