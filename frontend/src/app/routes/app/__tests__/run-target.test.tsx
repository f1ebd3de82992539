import { describe, expect, it, vi } from 'vitest';

import { db, runFixture } from '@/testing/mocks/db';
import { renderApp, screen } from '@/testing/test-utils';
import type { Run } from '@/types/api';

// Plotly cannot draw in jsdom (see run.test.tsx).
vi.mock('@/components/charts/plotly-figure', () => ({ default: () => null }));

const RUN_ID = 'r0000000-0000-4000-8000-000000000001';
const GATEWAY_ID = '5d1c0d9e-0000-4000-8000-0000000000f1';

type Target = NonNullable<Run['target']>;

/** The run page of a run served by pi-2. */
const renderTargetRun = (status: Run['status'], target: Omit<Target, 'device_id' | 'name'>) => {
  db.runs = [runFixture({ id: RUN_ID, status, target: { device_id: GATEWAY_ID, name: 'pi-2', ...target } })];
  return renderApp(`/runs/${RUN_ID}`);
};

describe('Run page: the target device', () => {
  it('should say which device serves the run, where and in which state', async () => {
    renderTargetRun('running', { role: 'gateway', address: '10.0.0.5:10000', status: 'serving' });

    expect(await screen.findByText('Gateway: pi-2 at 10.0.0.5:10000, serving')).toBeInTheDocument();
  });

  it('should say a CoAP server was released, and before it serves, that it starts', async () => {
    const { unmount } = renderTargetRun('done', { role: 'server', address: '10.0.0.5:5683', status: 'released' });
    expect(await screen.findByText('CoAP server: pi-2 at 10.0.0.5:5683, released')).toBeInTheDocument();
    unmount();

    renderTargetRun('preparing', { role: 'gateway', address: null, status: 'starting' });
    expect(await screen.findByText('Gateway: pi-2, starting')).toBeInTheDocument();
  });

  it('should show no target line for a run without a target device', async () => {
    db.runs = [runFixture({ id: RUN_ID, status: 'running' })];
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('status')).toHaveTextContent('running');
    expect(screen.queryByText(/^(Gateway|CoAP server):/)).not.toBeInTheDocument();
  });
});
