import { useMemo } from 'react';

import { BinnedHistogramChart, ChartPanel, type BinnedSeries } from '@/components/charts';
import { formatDecimal } from '@/lib/format';
import type { DelayFigures } from '@/types/api';

import { DISTRIBUTIONS, type Distribution } from '../api/link-spec';

import { DIRECTION_LABELS, DISTRIBUTION_LABELS } from './labels';
import { isShaped, type ShapedDirectionSpec } from './spec-format';

const ms = (value: number) => `${formatDecimal(value, 1)} ms`;

const distributionLabel = (figures: DelayFigures): string => {
  const known = (DISTRIBUTIONS as readonly string[]).includes(figures.distribution);
  const label = known ? DISTRIBUTION_LABELS[figures.distribution as Distribution] : figures.distribution;
  return figures.table ? `${label} ${figures.table}` : label;
};

/** One direction's delivered delay: figures, and the histogram of its 4096 table entries. */
const DirectionDelay = ({ figures }: { figures: DelayFigures }) => {
  const direction = DIRECTION_LABELS[figures.direction];
  const series = useMemo<BinnedSeries[]>(
    () => [{ name: direction, edges: figures.edges_ms, counts: figures.counts }],
    [direction, figures.edges_ms, figures.counts],
  );
  // maketable clips a table at µ ± 4σ: the σ delivered is below the profile's (docs/network-profiles.md).
  const clipped = figures.delivered_std_ms < figures.sigma_ms * 0.99;

  return (
    <section className="panel" aria-label={`Delay, ${direction}`}>
      <h2 className="panel-title">Delay delivered: {direction}</h2>
      <dl className="params">
        <dt>Mean</dt>
        <dd>{ms(figures.delivered_mean_ms)}</dd>
        <dt>σ</dt>
        <dd>{ms(figures.delivered_std_ms)}</dd>
        <dt>As given (µ / σ)</dt>
        <dd>
          {ms(figures.mu_ms)} / {ms(figures.sigma_ms)}
        </dd>
        <dt>Drawn from</dt>
        <dd>
          {distributionLabel(figures)} ({figures.entries.toLocaleString('en')} entries)
        </dd>
      </dl>
      {clipped ? (
        <p className="chart-caption">
          The table is clipped at µ ± 4σ when it is built, so the σ delivered is smaller than the σ given. These
          are the figures a run will see.
        </p>
      ) : null}
      <ChartPanel label={`Delay histogram: ${direction}`}>
        <BinnedHistogramChart series={series} valueLabel="Delay (ms)" />
      </ChartPanel>
    </section>
  );
};

type DelayFiguresPanelProps = { delays: readonly DelayFigures[]; directions: readonly ShapedDirectionSpec[] };

/** What each direction's delay distribution delivers; a note when there is nothing to draw. */
export const DelayFiguresPanel = ({ delays, directions }: DelayFiguresPanelProps) => {
  if (delays.length > 0) {
    return (
      <>
        {delays.map((figures) => (
          <DirectionDelay key={figures.direction} figures={figures} />
        ))}
      </>
    );
  }
  const delayed = directions.some((d) => isShaped(d.spec) && (d.spec.delay_ms ?? 0) > 0);
  return delayed ? (
    <p className="muted">
      No delay distribution to show: the delay is fixed (no jitter) or uniform (µ ± jitter), not drawn from a
      table.
    </p>
  ) : null;
};
