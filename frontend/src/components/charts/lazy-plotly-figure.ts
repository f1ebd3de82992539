import { lazy } from 'react';

// Code-split: the Plotly bundle is fetched only when a chart is first shown.
export const LazyPlotlyFigure = lazy(() => import('./plotly-figure'));
