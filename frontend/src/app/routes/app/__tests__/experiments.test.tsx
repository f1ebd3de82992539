import { describe, expect, it } from 'vitest';

import { db } from '@/testing/mocks/db';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { Experiment } from '@/types/api';

const experiment: Experiment = {
  id: 'e0000000-0000-4000-8000-000000000001',
  name: 'QoS 1 baseline',
  protocol: 'mqtt',
  qos: 1,
  security: 'none',
  payload_size: 66,
  message_count: 100,
  interval_ms: 0,
  measurement: 'round_trip',
  device_ids: ['5d1c0d9e-0000-4000-8000-000000000001'],
  created_at: '2025-01-02T10:00:00Z',
  runs: [{ id: 'r0000000-0000-4000-8000-000000000001', status: 'completed', created_at: '2025-01-02T10:05:00Z' }],
};

describe('Experiments pages', () => {
  it('should list experiments with links to them and show the navigation', async () => {
    db.experiments.push(experiment);
    renderApp('/');

    expect(await screen.findByRole('heading', { name: 'Experiments' })).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Experiments' })).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Devices' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'New experiment' })).toHaveAttribute('href', '/experiments/new');
    expect(await screen.findByRole('link', { name: 'QoS 1 baseline' })).toHaveAttribute(
      'href',
      `/experiments/${experiment.id}`,
    );
  });

  it('should show an experiment and start a run from it', async () => {
    db.experiments.push(experiment);
    const { user, router } = renderApp(`/experiments/${experiment.id}`);

    expect(await screen.findByRole('heading', { name: 'QoS 1 baseline' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /^Run of/ })).toHaveAttribute(
      'href',
      `/runs/${experiment.runs[0]?.id}`,
    );
    expect(await screen.findByText('pi-lab-1')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Start run' }));

    expect(await screen.findByRole('status')).toHaveTextContent('Status: pending');
    const run = db.runs.at(-1);
    expect(router.state.location.pathname).toBe(`/runs/${run?.id}`);
  });

  it('should say when an experiment is not found', async () => {
    renderApp('/experiments/e0000000-0000-4000-8000-00000000dead');

    expect(await screen.findByRole('alert')).toHaveTextContent('Not found.');
  });
});
