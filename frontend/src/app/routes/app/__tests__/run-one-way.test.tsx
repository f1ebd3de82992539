import { describe, expect, it, vi } from 'vitest';

import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import { db, runDistributionFixture, runFixture, runStatisticsFixture } from '@/testing/mocks/db';
import { renderApp, screen, waitFor, within } from '@/testing/test-utils';
import type { Run, RunDevice } from '@/types/api';

// One-way runs on the run page (device-agent docs/one-way.md): each device's clock offset to
// the platform, and delays named one-way delays. Round-trip runs: run.test.tsx.

// The seam: Plotly cannot draw in jsdom (see run.test.tsx).
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const RUN_ID = 'r0000000-0000-4000-8000-000000000001';

const part = (overrides: Partial<RunDevice>): RunDevice => ({
  device_id: '5d1c0d9e-0000-4000-8000-000000000001',
  name: 'pi-lab-1',
  status: 'done',
  sent: 250,
  received: 250,
  total: 250,
  records_ingested: 250,
  error: '',
  facts: {},
  network: null,
  clock: null,
  resources: null,
  ...overrides,
});

const oneWayRun = (overrides: Partial<Run> = {}): Run =>
  runFixture({
    id: RUN_ID,
    status: 'done',
    spec: { protocol: 'srup', qos: 1, security: 'none', payload_size: 16, message_count: 250, measurement: 'one_way' },
    started_at: '2025-01-02T10:00:00Z',
    finished_at: '2025-01-02T10:05:00Z',
    devices: [
      part({
        clock: {
          before: { offset_ms: 250.112, uncertainty_ms: 0.181 },
          after: { offset_ms: 250.087, uncertainty_ms: 0.164 },
          applied_ms: 250.0995,
          applied_uncertainty_ms: 0.1935,
        },
      }),
      // The probe after the run failed: the offset before is applied.
      part({
        device_id: '5d1c0d9e-0000-4000-8000-000000000002',
        name: 'pi-lab-2',
        clock: {
          before: { offset_ms: -3.5, uncertainty_ms: 0.25 },
          after: null,
          applied_ms: -3.5,
          applied_uncertainty_ms: 0.25,
        },
      }),
    ],
    ...overrides,
  });

/** The results endpoints' answers for the completed run. */
const arrangeResults = () => {
  db.statistics[RUN_ID] = runStatisticsFixture(RUN_ID);
  db.distributions[RUN_ID] = runDistributionFixture(RUN_ID);
  db.methods[RUN_ID] = { run_id: RUN_ID, text: 'One-way delays were measured with IoTSecBench 0.1.0.' };
};

const cellsOf = (table: HTMLElement, row: string) =>
  within(within(table).getByRole('row', { name: new RegExp(row) }))
    .getAllByRole('cell')
    .map((cell) => cell.textContent);

describe('Run page: one-way runs', () => {
  it("should show each device's clock offset to the platform before, after and applied", async () => {
    db.runs.push(oneWayRun());
    arrangeResults();
    renderApp(`/runs/${RUN_ID}`);

    const panel = await screen.findByRole('region', { name: 'Clock offset to the platform' });
    const pi1 = within(panel).getByRole('table', { name: 'Clock offset of pi-lab-1 to the platform' });
    expect(within(pi1).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Probe',
      'Offset (ms)',
      '± Uncertainty (ms)',
    ]);
    expect(cellsOf(pi1, 'Before the run')).toEqual(['250.112', '0.181']);
    expect(cellsOf(pi1, 'After the run')).toEqual(['250.087', '0.164']);
    expect(cellsOf(pi1, 'Applied to receive times')).toEqual(['250.100', '0.194']);

    const pi2 = within(panel).getByRole('table', { name: 'Clock offset of pi-lab-2 to the platform' });
    expect(cellsOf(pi2, 'Before the run')).toEqual(['-3.500', '0.250']);
    expect(cellsOf(pi2, 'After the run')).toEqual(['—', '—']);
    expect(cellsOf(pi2, 'Applied to receive times')).toEqual(['-3.500', '0.250']);
  });

  it('should name the delays one-way delays in its charts', async () => {
    plotlyFigure.mockClear();
    db.runs.push(oneWayRun());
    arrangeResults();
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('region', { name: 'One-way delay histogram' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'One-way delay boxplot' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'One-way delay over the sequence' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: /Round-trip time/ })).not.toBeInTheDocument();
    await waitFor(() => {
      const axes = plotlyFigure.mock.calls.map(([props]) => (props as PlotlyFigureProps).layout.yaxis?.title?.text);
      expect(axes).toContain('One-way delay (ms)');
      expect(axes).not.toContain('Round-trip time (ms)');
    });
  });

  it('should say the clock offsets come at the end while the run is under way', async () => {
    db.runs.push(
      oneWayRun({
        status: 'running',
        finished_at: null,
        devices: [part({ status: 'running', sent: 10, received: 10, records_ingested: 0, clock: null, resources: null })],
      }),
    );
    renderApp(`/runs/${RUN_ID}`);

    const panel = await screen.findByRole('region', { name: 'Clock offset to the platform' });
    expect(within(panel).getByText('pi-lab-1: Its clock offsets arrive when the device’s run ends.')).toBeInTheDocument();
    expect(within(panel).queryByRole('table')).not.toBeInTheDocument();
  });

  it('should show no clock offsets for a round-trip run', async () => {
    db.runs.push(oneWayRun({ spec: { protocol: 'mqtt', qos: 1, measurement: 'round_trip' } }));
    arrangeResults();
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('region', { name: 'Round-trip time histogram' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Clock offset to the platform' })).not.toBeInTheDocument();
  });
});
