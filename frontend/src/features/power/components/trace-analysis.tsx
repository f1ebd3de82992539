import { useMemo } from 'react';

import type { PowerTrace } from '@/types/api';

import { usePowerTraces } from '../api/get-power-traces';

import { FiguresPanel } from './figures-panel';
import { PowerChartPanel } from './power-chart-panel';
import { ProjectionPanel } from './projection-panel';

const NO_TRACES: readonly PowerTrace[] = [];

type TraceAnalysisProps = { trace: PowerTrace };

/** A parsed trace: its chart and alignment, energy figures and battery-life projection. */
export const TraceAnalysis = ({ trace }: TraceAnalysisProps) => {
  // Baselines, references and comparisons are picked among the workspace's parsed traces.
  const all = usePowerTraces();
  const parsed = useMemo(() => (all.data ?? NO_TRACES).filter((t) => t.status === 'parsed'), [all.data]);

  return (
    <>
      <PowerChartPanel trace={trace} />
      <FiguresPanel trace={trace} traces={parsed} />
      <ProjectionPanel trace={trace} traces={parsed} />
    </>
  );
};
