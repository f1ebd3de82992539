import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db, deviceFixture, experimentFixture, runBriefFixture, runFixture } from '@/testing/mocks/db';
import { errorResponse, IMPORTED_DESIGN_NAME } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, within } from '@/testing/test-utils';

const EXPERIMENT_ID = 'e0000000-0000-4000-8000-000000000001';

/** A QoS sweep whose first run is running and second queued; a third failed earlier. */
const arrangeSweep = () => {
  const runs = [
    runFixture({ id: 'r1', status: 'running', cell_label: 'QoS 0', position: 0, started_at: '2025-01-02T10:00:01Z' }),
    runFixture({ id: 'r2', status: 'queued', cell_label: 'QoS 1', position: 1 }),
    runFixture({ id: 'r3', status: 'failed', cell_label: 'QoS 2', position: 2, error: 'pi-lab-1 went offline.' }),
  ];
  db.runs.push(...runs);
  db.experiments.push(
    experimentFixture({
      id: EXPERIMENT_ID,
      name: 'QoS sweep',
      axes: [{ name: 'QoS', values: [{ qos: 0 }, { qos: 1 }, { qos: 2 }] }],
      runs: runs.map((run) => runBriefFixture({ ...run, waiting_for: run.waiting_for?.message ?? null })),
    }),
  );
};

describe('Experiment page runs', () => {
  it("should list the matrix's runs with their labels, statuses and errors", async () => {
    arrangeSweep();
    renderApp(`/experiments/${EXPERIMENT_ID}`);

    const table = await screen.findByRole('table', { name: 'Runs of this experiment' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent)[0])).toEqual(['1', '2', '3']);
    expect(within(rows[0] as HTMLElement).getByRole('link', { name: 'QoS 0' })).toHaveAttribute('href', '/runs/r1');
    expect(within(rows[2] as HTMLElement).getByText('pi-lab-1 went offline.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Start runs' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Export YAML' })).toHaveAttribute(
      'href',
      `/api/experiments/${EXPERIMENT_ID}/design.yaml`,
    );
  });

  it('should cancel a queued run and retry a failed one', async () => {
    arrangeSweep();
    const { user } = renderApp(`/experiments/${EXPERIMENT_ID}`);

    await user.click(await screen.findByRole('button', { name: 'Cancel run 2' }));
    expect(await screen.findByRole('button', { name: 'Retry run 2' })).toBeInTheDocument();
    expect(db.runs.find((run) => run.id === 'r2')?.status).toBe('cancelled');

    await user.click(screen.getByRole('button', { name: 'Retry run 3' }));
    const table = screen.getByRole('table', { name: 'Runs of this experiment' });
    expect(await within(table).findAllByRole('row')).toHaveLength(5);
    expect(db.runs.at(-1)).toMatchObject({ status: 'queued', retry_of: 'r3', cell_label: 'QoS 2' });
  });

  it('should say plainly why the runs could not start', async () => {
    arrangeSweep();
    const { user } = renderApp(`/experiments/${EXPERIMENT_ID}`);

    await user.click(await screen.findByRole('button', { name: 'Start runs' }));

    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The runs could not start. This experiment already has runs queued or in progress (the next is r1)',
    );
  });
});

describe('Run page status changes', () => {
  it('should show every status change with its time, the cell label and cancel', async () => {
    db.runs.push(
      runFixture({
        id: 'r1',
        status: 'running',
        cell_label: 'QoS 0 · AES-128-CBC · 66 B',
        transitions: [
          { status: 'queued', at: '2025-01-02T10:00:00Z' },
          { status: 'preparing', at: '2025-01-02T10:00:01Z' },
          { status: 'running', at: '2025-01-02T10:00:02Z' },
        ],
      }),
    );
    db.experiments.push(experimentFixture({ runs: [runBriefFixture({ id: 'r1', status: 'running' })] }));
    const { user } = renderApp('/runs/r1');

    expect(await screen.findByText('QoS 0 · AES-128-CBC · 66 B')).toBeInTheDocument();
    const timeline = screen.getByRole('region', { name: 'Status changes' });
    expect(within(timeline).getAllByRole('listitem').map((item) => item.textContent?.split(' ')[0])).toEqual([
      'queued',
      'preparing',
      'running',
    ]);

    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Status: cancelled');
    expect(screen.getByText('Cancelled by alice.')).toBeInTheDocument();
  });

  it('should retry a failed run and open the new run', async () => {
    db.runs.push(runFixture({ id: 'r1', status: 'failed', error: 'pi-lab-1 went offline.' }));
    db.experiments.push(experimentFixture({ runs: [runBriefFixture({ id: 'r1', status: 'failed' })] }));
    const { user, router } = renderApp('/runs/r1');

    expect(await screen.findByRole('alert')).toHaveTextContent('The run failed. pi-lab-1 went offline.');
    await user.click(screen.getByRole('button', { name: 'Retry' }));

    expect(await screen.findByText('an earlier run')).toHaveAttribute('href', '/runs/r1');
    expect(router.state.location.pathname).toBe(`/runs/${db.runs.at(-1)?.id}`);
  });
});

describe('Experiments list search and filters', () => {
  it('should keep the filters in the URL and ask the server with them', async () => {
    db.experiments.push(
      experimentFixture({ id: 'e1', name: 'MQTT baseline' }),
      experimentFixture({ id: 'e2', name: 'SRUP conditions', protocol: 'srup' }),
    );
    const { user, router } = renderApp('/experiments?protocol=srup');

    expect(await screen.findByRole('link', { name: 'SRUP conditions' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'MQTT baseline' })).not.toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Protocol' })).toHaveDisplayValue('SRUP (signed MQTT)');

    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search' }), 'baseline');

    expect(await screen.findByRole('link', { name: 'MQTT baseline' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'SRUP conditions' })).not.toBeInTheDocument();
    expect(router.state.location.search).toBe('?q=baseline');
  });

  it('should offer to clone an experiment into a prefilled form', async () => {
    db.experiments.push(experimentFixture({ id: 'e1', name: 'MQTT baseline' }));
    const { user } = renderApp('/experiments');

    await user.click(await screen.findByRole('link', { name: 'Clone MQTT baseline' }));

    expect(await screen.findByRole('textbox', { name: 'Name' })).toHaveValue('Copy of MQTT baseline');
  });

  it('should show the lines of a YAML design the server refuses', async () => {
    server.use(
      http.post('/api/experiments/import/', () =>
        errorResponse(400, 'validation_error', 'Invalid input.', {
          fields: { file: ['Line 3: qos: 3 is not one of [-1, 0, 1, 2].', 'axes[0].values: expected a list.'] },
        }),
      ),
    );
    const { user } = renderApp('/experiments');

    await user.upload(await screen.findByLabelText('Import YAML'), new File(['qos: 3\n'], 'bad.yaml'));

    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The design file could not be imported.');
    expect(within(alert).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'Line 3: qos: 3 is not one of [-1, 0, 1, 2].',
      'axes[0].values: expected a list.',
    ]);
  });

  it('should import a YAML design and open the new experiment', async () => {
    const { user, router } = renderApp('/experiments');

    await user.upload(await screen.findByLabelText('Import YAML'), new File(['name: From YAML\n'], 'good.yaml'));

    expect(await screen.findByRole('heading', { name: IMPORTED_DESIGN_NAME })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(`/experiments/${db.experiments[0]?.id}`);
  });
});

describe('Device health', () => {
  it('should run a health check and show each check', async () => {
    db.devices = [deviceFixture()];
    db.healthResults[deviceFixture().id] = {
      status: 'failed',
      requested_at: '2025-01-02T10:00:00Z',
      checked_at: '2025-01-02T10:00:03Z',
      checks: [
        { name: 'broker round trip', ok: true, detail: '1.2 ms', value: 1.2 },
        { name: 'clock offset', ok: false, detail: '850 ms off: enable NTP', value: 850 },
      ],
      error: 'The clock is off by 850 ms.',
    };
    const { user } = renderApp('/devices');

    await user.click(await screen.findByRole('button', { name: 'Check health of pi-lab-1' }));

    const checks = await screen.findByRole('list', { name: 'Health checks of pi-lab-1' }, { timeout: 5000 });
    expect(within(checks).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      '✓ broker round trip: 1.2 ms',
      '✗ clock offset: 850 ms off: enable NTP',
    ]);
    expect(screen.getByText('The clock is off by 850 ms.')).toBeInTheDocument();
  });

  it('should show the commands to run on a Raspberry Pi with a new token', async () => {
    const { user } = renderApp('/devices');

    await user.click(await screen.findByRole('button', { name: 'New enrollment token' }));

    const commands = await screen.findByLabelText('Commands for a Raspberry Pi');
    expect(commands).toHaveTextContent('sudo apt install python3-venv python3-dev gcc');
    expect(commands).toHaveTextContent('iotsecbench-agent selftest');
    expect(commands).toHaveTextContent(`enroll --server ${window.location.origin} --token enroll-abc123`);
    expect(commands).toHaveTextContent('iotsecbench-agent run --state-dir ~/.iotsecbench-agent');
  });
});
