import Plotly, { type Config, type ModeBarButton } from 'plotly.js-dist-min';
import { useEffect, useMemo, useRef } from 'react';
import { useErrorBoundary } from 'react-error-boundary';

import { chartFilename, chartHeading, useChartTitle } from './chart-title';
import type { Figure } from './figures';

/**
 * The only module that imports plotly.js. It is large (~4 MB), so it is loaded lazily
 * through ./lazy-plotly-figure and ends up in its own chunk. Tests replace this module
 * (the seam) because Plotly cannot render in jsdom.
 */

/** Downloads of a chart without a title are named after the app; the browser adds " (1)" etc. to repeats. */
export const IMAGE_FILENAME = 'iotsecbench-chart';
// Room above the plot for the title that a download carries.
const TITLE_MARGIN_PX = 50;

/**
 * Plotly's built-in "Download plot as a PNG" button covers one format; this second button
 * saves the same figure as SVG, the vector format a paper wants.
 */
export const svgDownloadButton = (filename: string): ModeBarButton => ({
  name: 'downloadSvg',
  title: 'Download plot as SVG',
  icon: Plotly.Icons.disk,
  click: (graph) => {
    void Plotly.downloadImage(graph, { format: 'svg', filename });
  },
});

/**
 * The one config of every chart: PNG (built-in button) and SVG (ours) downloads named after
 * the chart, and nothing that sends the data to Plotly's cloud (unpublished results must not
 * leave the platform, issue #21): no logo link, and plotly.js 4's cloud-upload button
 * (`sendChartToCloud`, shown when `showSendToCloud` is set) both turned off and removed, in
 * case a later version turns it on by default. No `plotlyServerURL`: nowhere to upload to.
 */
export const plotConfig = (filename: string = IMAGE_FILENAME): Partial<Config> => ({
  responsive: true,
  displaylogo: false,
  showSendToCloud: false,
  modeBarButtonsToRemove: ['sendChartToCloud'],
  toImageButtonOptions: { format: 'png', filename, scale: 2 },
  modeBarButtonsToAdd: [svgDownloadButton(filename)],
});

export type PlotlyFigureProps = Figure & {
  /** What the PNG and SVG downloads are named after (e.g. the figure's title). */
  imageName?: string;
  /** `plotly_relayout` events (zoom, pan, autoscale), as Plotly's flat key → value object. */
  onRelayout?: (event: Readonly<Record<string, unknown>>) => void;
};

export default function PlotlyFigure({ data, layout, onRelayout, imageName }: PlotlyFigureProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const { showBoundary } = useErrorBoundary();
  const chartTitle = useChartTitle();
  const heading = chartHeading(chartTitle);
  // A figure named by its caller (imageName) is saved under that name, else under its panel's.
  const filename = chartFilename(imageName ? { title: imageName } : chartTitle, IMAGE_FILENAME);
  const config = useMemo(() => plotConfig(filename), [filename]);
  // The chart's title and subject in the figure itself, so a PNG or SVG download carries them;
  // a figure that has its own title keeps it.
  const titled = useMemo(
    () =>
      heading === '' || layout.title
        ? layout
        : {
            ...layout,
            title: { text: heading, font: { size: 13 }, x: 0, xanchor: 'left' as const },
            margin: { ...layout.margin, t: Math.max(layout.margin?.t ?? 0, TITLE_MARGIN_PX) },
          },
    [layout, heading],
  );
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
    Plotly.react(container, data, titled, config)
      .then((graph) => {
        // Re-attached after every draw, replacing the last one: Plotly.purge (an unmount, or
        // StrictMode's mount-unmount-mount) drops the graph's emitter, and a later draw makes
        // a new one. The emitter is gone altogether if the purge came after this draw.
        if (typeof graph.on !== 'function') return;
        graph.removeAllListeners('plotly_relayout');
        graph.on('plotly_relayout', (event) => onRelayoutRef.current?.(event as Record<string, unknown>));
      })
      .catch(showBoundary);
  }, [data, titled, config, showBoundary]);

  useEffect(() => {
    const container = containerRef.current;
    return () => {
      // Frees Plotly's listeners and WebGL contexts when the panel unmounts.
      if (container) Plotly.purge(container);
    };
  }, []);

  return <div ref={containerRef} className="plotly-figure" />;
}
