import Plotly, { type Config } from 'plotly.js-dist-min';
import { useEffect, useRef } from 'react';
import { useErrorBoundary } from 'react-error-boundary';

import type { Figure } from './figures';

/**
 * The only module that imports plotly.js. It is large (~4 MB), so it is loaded lazily
 * through ./lazy-plotly-figure and ends up in its own chunk. Tests replace this module
 * (the seam) because Plotly cannot render in jsdom.
 */

const PLOT_CONFIG: Partial<Config> = { responsive: true, displaylogo: false };

export type PlotlyFigureProps = Figure;

export default function PlotlyFigure({ data, layout }: PlotlyFigureProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const { showBoundary } = useErrorBoundary();

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return;
    // Plotly.react diffs against what is already drawn, so refetches are cheap.
    // Its failures are async: hand them to the panel's ErrorBoundary explicitly.
    Plotly.react(container, data, layout, PLOT_CONFIG).catch(showBoundary);
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
