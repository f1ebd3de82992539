import { useCallback, useMemo, useState } from 'react';

import { ChartPanel, EnvelopeChart, type EnvelopeData, type Range, type ShadedWindow } from '@/components/charts';
import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { useDebouncedValue } from '@/hooks/use-debounced-value';
import type { PowerTrace } from '@/types/api';

import { usePowerPlot, WHOLE_TRACE, type PlotRange } from '../api/get-power-plot';

import { AlignmentControl } from './alignment-control';
import { formatCount } from './energy';

/** Wait this long after the last zoom or pan before asking for the visible window's data. */
export const ZOOM_DEBOUNCE_MS = 300;

const EMPTY: EnvelopeData = { x: [], min: [], max: [], mean: [] };

/**
 * The visible x range clamped to the trace; the whole trace once the zoom is reset, and
 * null when the view holds none of the trace (panned past its end: nothing to fetch).
 */
const toPlotRange = (range: Range | null, durationS: number | null): PlotRange | null => {
  if (!range) return WHOLE_TRACE;
  const start = Math.max(0, range.min);
  const end = Math.min(durationS ?? range.max, range.max);
  return end > start ? { start, end } : null;
};

type PowerChartPanelProps = { trace: PowerTrace };

/**
 * Power over time: the min–max band and mean of each bucket, the run window shaded.
 * Zooming fetches the visible window again at full resolution (the server returns every
 * sample once few enough are in view); the previous data stays drawn meanwhile.
 */
export const PowerChartPanel = ({ trace }: PowerChartPanelProps) => {
  const [visible, setVisible] = useState<PlotRange>(WHOLE_TRACE);
  const range = useDebouncedValue(visible, ZOOM_DEBOUNCE_MS);
  const plot = usePowerPlot({ traceId: trace.id, range });

  const onXRangeChange = useCallback(
    (next: Range | null) => {
      const range = toPlotRange(next, trace.duration_s);
      if (range) setVisible(range);
    },
    [trace.duration_s],
  );

  const data = useMemo<EnvelopeData>(
    () => (plot.data ? { x: plot.data.t, min: plot.data.min_w, max: plot.data.max_w, mean: plot.data.mean_w } : EMPTY),
    [plot.data],
  );
  // The trace's own window moves as soon as an alignment is saved; the plot's is a fallback.
  const runWindow = trace.run_window ?? plot.data?.run_window ?? null;
  const shade = useMemo<ShadedWindow | null>(
    () => (runWindow ? { start: runWindow.start_s, end: runWindow.end_s, label: 'Run window' } : null),
    [runWindow],
  );

  const body = () => {
    if (plot.isPending) return <Loading label="Loading samples…" />;
    if (plot.isError && !plot.data) return <ErrorAlert error={plot.error} />;
    return (
      <>
        <EnvelopeChart
          data={data}
          xLabel="Time (s)"
          yLabel="Power (W)"
          shade={shade}
          onXRangeChange={onXRangeChange}
        />
        <p className="muted chart-caption">
          {plot.data?.exact
            ? `Every sample in view (${formatCount(plot.data.samples)}).`
            : `${formatCount(plot.data?.t.length)} buckets of ${formatCount(plot.data?.samples)} samples: ` +
              "the band spans each bucket's min and max, the line its mean. Zoom in for detail."}
          {plot.isFetching ? ' Loading the visible window…' : ''}
        </p>
        {plot.isError ? <ErrorAlert error={plot.error} /> : null}
      </>
    );
  };

  return (
    <ChartPanel label="Power over time" controls={<AlignmentControl trace={trace} />}>
      {body()}
    </ChartPanel>
  );
};
