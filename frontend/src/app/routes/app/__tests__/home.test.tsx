import { describe, expect, it } from 'vitest';

import { db, experimentFixture, runBriefFixture } from '@/testing/mocks/db';
import { renderApp, screen, within } from '@/testing/test-utils';

const step = (name: RegExp) => screen.getByRole('listitem', { name });

describe('Home page', () => {
  it('should guide an empty workspace step by step, from enrolling a device to a first run', async () => {
    db.devices.length = 0;
    const { router } = renderApp('/');

    expect(await screen.findByRole('heading', { name: 'Home', level: 1 })).toBeInTheDocument();
    await screen.findByRole('region', { name: 'Your first run in three steps' });
    expect(step(/Step 1: A device/)).toHaveTextContent('(not done yet)');
    expect(within(step(/Step 1/)).getByRole('link', { name: 'Enrol a device' })).toHaveAttribute('href', '/devices');
    expect(step(/Step 2: A design/)).toHaveTextContent('(not done yet)');
    expect(within(step(/Step 2/)).getByRole('link', { name: 'paper’s preset' })).toHaveAttribute(
      'href',
      '/experiments/new',
    );
    expect(step(/Step 3: A run/)).toHaveTextContent('(not done yet)');
    expect(screen.queryByRole('region', { name: 'Recent runs' })).not.toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
  });

  it('should mark the device and design steps done from real data and point at the experiment to start', async () => {
    db.experiments.push(experimentFixture({ id: 'e1', name: 'QoS 1 baseline', runs: [] }));
    renderApp('/');

    await screen.findByRole('region', { name: 'Your first run in three steps' });
    // The fake workspace has pi-lab-1 online and pi-lab-2 offline.
    expect(step(/Step 1: A device/)).toHaveTextContent('(done)');
    expect(step(/Step 1/)).toHaveTextContent('1 of 2 online');
    expect(step(/Step 2: A design/)).toHaveTextContent('(done)');
    expect(step(/Step 3: A run/)).toHaveTextContent('(not done yet)');
    expect(within(step(/Step 3/)).getByRole('link', { name: 'your latest experiment' })).toHaveAttribute(
      'href',
      '/experiments/e1',
    );
  });

  it("should show devices' status with a health check, and the recent runs linking to them, once a run exists", async () => {
    db.experiments.push(
      experimentFixture({
        id: 'e1',
        name: 'QoS sweep',
        runs: [
          runBriefFixture({ id: 'r1', status: 'done', cell_label: 'QoS 0', created_at: '2025-01-02T10:00:00Z' }),
          runBriefFixture({ id: 'r2', status: 'queued', cell_label: 'QoS 1', created_at: '2025-01-03T10:00:00Z' }),
        ],
      }),
    );
    const { user } = renderApp('/');

    const runs = await screen.findByRole('table', { name: 'Recent runs' });
    const links = within(runs).getAllByRole('link');
    // Newest first.
    expect(links.map((link) => link.textContent)).toEqual(['QoS sweep · QoS 1', 'QoS sweep · QoS 0']);
    expect(links[0]).toHaveAttribute('href', '/runs/r2');
    expect(within(runs).getByText('queued')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Your first run in three steps' })).not.toBeInTheDocument();

    const devices = screen.getByRole('table', { name: 'Devices’ status' });
    const [online, offline] = within(devices).getAllByRole('row').slice(1) as [HTMLElement, HTMLElement];
    expect(online).toHaveTextContent('pi-lab-1onlinenever checked');
    expect(offline).toHaveTextContent('offline');
    expect(within(offline).getByRole('button', { name: 'Check health of pi-lab-2' })).toBeDisabled();

    await user.click(within(online).getByRole('button', { name: 'Check health of pi-lab-1' }));
    expect(await within(online).findByText('checking…')).toBeInTheDocument();
    expect(db.devices[0]?.health?.status).toBe('pending');
  });

  it('should keep the experiments list at /experiments, reachable from the navigation', async () => {
    const { user, router } = renderApp('/');

    await user.click(await screen.findByRole('link', { name: 'Experiments', current: false }));
    expect(await screen.findByRole('heading', { name: 'Experiments', level: 1 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/experiments');
  });
});
