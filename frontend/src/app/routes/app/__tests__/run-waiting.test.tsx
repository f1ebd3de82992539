import { describe, expect, it } from 'vitest';

import { db, runFixture } from '@/testing/mocks/db';
import { renderApp, screen, within } from '@/testing/test-utils';

const RUN_ID = 'r0000000-0000-4000-8000-000000000001';
const BUSY_RUN_ID = 'r0000000-0000-4000-8000-000000000077';

describe('A queued run', () => {
  it('should name the busy device and the run it is busy with', async () => {
    db.runs = [
      runFixture({
        id: RUN_ID,
        status: 'queued',
        waiting_for: {
          reason: 'devices',
          message: 'Waits for pi-lab-1 (busy with run 3 of “Nightly baseline”).',
          blockers: [
            {
              device: 'pi-lab-1',
              run_id: BUSY_RUN_ID,
              run_position: 3,
              experiment_id: 'e0000000-0000-4000-8000-000000000009',
              experiment_name: 'Nightly baseline',
            },
          ],
        },
      }),
    ];
    renderApp(`/runs/${RUN_ID}`);

    const panel = await screen.findByRole('region', { name: 'Queued: what it waits for' });
    expect(panel).toHaveTextContent('pi-lab-1 is busy with run 3 of “Nightly baseline”.');
    expect(within(panel).getByRole('link', { name: 'run 3 of “Nightly baseline”' })).toHaveAttribute(
      'href',
      `/runs/${BUSY_RUN_ID}`,
    );
  });

  it('should say when no worker has started it', async () => {
    const message = 'Nothing holds it back: it starts when a worker picks it up.';
    db.runs = [runFixture({ id: RUN_ID, status: 'queued', waiting_for: { reason: 'worker', message, blockers: [] } })];
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('region', { name: 'Queued: what it waits for' })).toHaveTextContent(message);
  });

  it('should not show what it waited for once it runs', async () => {
    db.runs = [runFixture({ id: RUN_ID, status: 'running', started_at: '2025-01-02T10:00:01Z', waiting_for: null })];
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('status')).toHaveTextContent('running');
    expect(screen.queryByRole('region', { name: 'Queued: what it waits for' })).not.toBeInTheDocument();
  });
});
