import { describe, expect, it } from 'vitest';

import { db, experimentFixture, runBriefFixture } from '@/testing/mocks/db';
import { renderApp, screen, within } from '@/testing/test-utils';

const WAITS = 'Waits for pi-lab-1 (busy with run 1 of “Busy one”).';

describe('What queued runs wait for, on the lists', () => {
  it('should say on the experiments list and the experiment’s runs what a queued run waits for', async () => {
    db.experiments.push(
      experimentFixture({
        id: 'e1',
        name: 'Waiting one',
        runs: [runBriefFixture({ id: 'r1', status: 'queued', waiting_for: WAITS })],
      }),
      experimentFixture({ id: 'e2', name: 'Done one', runs: [runBriefFixture({ id: 'r2', status: 'done' })] }),
    );
    renderApp('/experiments');

    const row = (await screen.findByRole('link', { name: 'Waiting one' })).closest('tr') as HTMLElement;
    expect(within(row).getByText(WAITS)).toBeInTheDocument();
    const doneRow = screen.getByRole('link', { name: 'Done one' }).closest('tr') as HTMLElement;
    expect(within(doneRow).queryByText(/Waits for/)).not.toBeInTheDocument();
  });

  it('should say it in the runs table of the experiment page', async () => {
    db.experiments.push(
      experimentFixture({ id: 'e1', runs: [runBriefFixture({ id: 'r1', status: 'queued', waiting_for: WAITS })] }),
    );
    renderApp('/experiments/e1');

    const table = await screen.findByRole('table', { name: 'Runs of this experiment' });
    expect(within(table).getByText(WAITS)).toBeInTheDocument();
  });
});
