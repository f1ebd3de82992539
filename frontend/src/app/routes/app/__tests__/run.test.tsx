import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import { db, deviceFixture } from '@/testing/mocks/db';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { Run } from '@/types/api';

// The seam: Plotly cannot draw in jsdom, so the one module that imports it is replaced
// by a stub that records what it was given.
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const RUN_ID = 'r0000000-0000-4000-8000-000000000001';
const [pi1, pi2] = [deviceFixture(), deviceFixture({ id: '5d1c0d9e-0000-4000-8000-000000000002', name: 'pi-lab-2' })];

const runningRun: Run = {
  id: RUN_ID,
  experiment: { id: 'e0000000-0000-4000-8000-000000000001', name: 'QoS 1 baseline' },
  status: 'running',
  error: '',
  spec: {},
  created_at: '2025-01-02T10:00:00Z',
  started_at: '2025-01-02T10:00:01Z',
  finished_at: null,
  devices: [
    { device_id: pi1.id, name: pi1.name, status: 'running', sent: 40, received: 38, total: 100, records_ingested: 0, error: '', facts: {} },
    { device_id: pi2.id, name: pi2.name, status: 'running', sent: 10, received: 10, total: 100, records_ingested: 0, error: '', facts: {} },
  ],
  summary: [],
};

const completedRun: Run = {
  ...runningRun,
  status: 'completed',
  finished_at: '2025-01-02T10:01:00Z',
  devices: runningRun.devices.map((d) => ({ ...d, status: 'completed', sent: 100, received: 100, records_ingested: 100 })),
  summary: [
    { device_id: pi1.id, device_name: pi1.name, n: 100, lost: 0, mean_ms: 12.3456, median_ms: 12, p95_ms: 20.5, p99_ms: 25, min_ms: 8.1, max_ms: 30, std_ms: 3.21 },
    { device_id: pi2.id, device_name: pi2.name, n: 1, lost: 99, mean_ms: 15, median_ms: 15, p95_ms: 15, p99_ms: 15, min_ms: 15, max_ms: 15, std_ms: null },
    { device_id: null, device_name: 'All devices', n: 101, lost: 99, mean_ms: 12.37, median_ms: 12, p95_ms: 20.5, p99_ms: 25, min_ms: 8.1, max_ms: 30, std_ms: 3.2 },
  ],
};

const rtt = {
  devices: [
    { device_id: pi1.id, name: pi1.name, rtt_ms: [8.1, 12, 30] },
    { device_id: pi2.id, name: pi2.name, rtt_ms: [15] },
  ],
};

describe('Run page', () => {
  it('should show live progress, then the charts and summary once completed', async () => {
    // First poll: running. Every later poll: completed.
    let polls = 0;
    server.use(
      http.get('/api/runs/:id/', () => HttpResponse.json(polls++ === 0 ? runningRun : completedRun)),
      http.get('/api/runs/:id/rtt/', () => HttpResponse.json(rtt)),
    );
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('heading', { name: 'Run: QoS 1 baseline' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Status: running');
    const bar = screen.getByRole('progressbar', { name: 'pi-lab-1 progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '40');
    expect(bar).toHaveAttribute('aria-valuemax', '100');
    expect(screen.getByText('38/100 received')).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'pi-lab-2 progress' })).toHaveAttribute('aria-valuenow', '10');
    expect(screen.queryByRole('table', { name: 'Summary' })).not.toBeInTheDocument();

    // The 1 s refetch brings the completed run.
    const table = await screen.findByRole('table', { name: 'Summary' }, { timeout: 3000 });
    expect(screen.getByRole('status')).toHaveTextContent('Status: completed');
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();

    const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual([
      'Device', 'n', 'Lost', 'Mean (ms)', 'Median (ms)', 'p95 (ms)', 'p99 (ms)', 'Min (ms)', 'Max (ms)', 'Std dev (ms)',
    ]);
    const pi1Row = within(table).getByRole('row', { name: /pi-lab-1/ });
    expect(within(pi1Row).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '100', '0', '12.346', '12.000', '20.500', '25.000', '8.100', '30.000', '3.210',
    ]);
    const pi2Row = within(table).getByRole('row', { name: /pi-lab-2/ });
    expect(within(pi2Row).getAllByRole('cell').at(-1)).toHaveTextContent('—');
    expect(within(table).getByRole('rowheader', { name: 'All devices' })).toBeInTheDocument();

    // Both chart panels received the per-device samples.
    expect(screen.getByRole('region', { name: 'Round-trip time histogram' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Round-trip time boxplot' })).toBeInTheDocument();
    await vi.waitFor(() => expect(plotlyFigure).toHaveBeenCalled());
    const figures = plotlyFigure.mock.calls.map(([props]) => props as PlotlyFigureProps);
    const histogram = figures.find((f) => f.data[0]?.type === 'histogram');
    const box = figures.find((f) => f.data[0]?.type === 'box');
    expect(histogram?.data).toEqual([
      expect.objectContaining({ name: 'pi-lab-1', x: [8.1, 12, 30] }),
      expect.objectContaining({ name: 'pi-lab-2', x: [15] }),
    ]);
    expect(histogram?.layout.barmode).toBe('overlay');
    expect(box?.data).toEqual([
      expect.objectContaining({ name: 'pi-lab-1', y: [8.1, 12, 30] }),
      expect.objectContaining({ name: 'pi-lab-2', y: [15] }),
    ]);
  });

  it('should show the error of a failed run', async () => {
    db.runs.push({ ...runningRun, status: 'failed', error: 'Device pi-lab-2 did not respond.' });
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('alert')).toHaveTextContent('Device pi-lab-2 did not respond.');
    expect(screen.getByRole('status')).toHaveTextContent('Status: failed');
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Summary' })).not.toBeInTheDocument();
  });
});
