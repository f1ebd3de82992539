import { describe, expect, it, vi } from 'vitest';

import { db, deviceFixture, runFixture } from '@/testing/mocks/db';
import { deviceBusyMessage } from '@/testing/mocks/handlers';
import { renderApp, screen, within } from '@/testing/test-utils';

const PI_2 = '5d1c0d9e-0000-4000-8000-000000000002';

/** The devices table's row of this device, once the list has loaded. */
const deviceRow = async (name: string) =>
  within(await screen.findByRole('table', { name: 'Enrolled devices' })).getByRole('row', { name: new RegExp(name) });

describe('Devices page', () => {
  it('should list the workspace devices with their facts', async () => {
    renderApp('/devices');

    expect(await screen.findByRole('heading', { name: 'Devices' })).toBeInTheDocument();
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3); // header + 2 devices

    const first = within(table).getByRole('row', { name: /pi-lab-1/ });
    expect(within(first).getByRole('cell', { name: 'Online' })).toBeInTheDocument();

    const second = within(table).getByRole('row', { name: /pi-lab-2/ });
    expect(within(second).getByRole('cell', { name: 'Offline' })).toBeInTheDocument();
  });

  it('should open a device\'s facts and last health check below its row', async () => {
    db.devices = [
      deviceFixture({
        facts: {
          ...deviceFixture().facts,
          hardware_model: 'Raspberry Pi 4 Model B Rev 1.5',
          agent_version: '0.4.0',
          libraries: { 'paho-mqtt': '2.1.0', pycryptodome: '3.21.0' },
          network_emulation: {
            netem: { available: false, reason: 'needs root (tc qdisc)' },
            userspace: { available: true, reason: '' },
          },
        },
        health: {
          status: 'failed',
          requested_at: '2025-01-02T09:59:58Z',
          checked_at: '2025-01-02T10:00:00Z',
          checks: [{ name: 'clock', ok: false, detail: 'offset 900 ms', value: 900 }],
        },
      }),
    ];
    const { user } = renderApp('/devices');

    const row = await deviceRow('pi-lab-1');
    expect(within(row).getByRole('cell', { name: 'Raspberry Pi 4 Model B Rev 1.5' })).toBeInTheDocument();
    const toggle = within(row).getByRole('button', { name: 'Details of pi-lab-1' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');

    const facts = screen.getByLabelText('Facts of pi-lab-1');
    const byTerm = Object.fromEntries(
      within(facts)
        .getAllByRole('term')
        .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
    );
    expect(byTerm).toMatchObject({
      'Hardware model': 'Raspberry Pi 4 Model B Rev 1.5',
      CPU: 'Cortex-A72 (4 cores)',
      RAM: '4.0 GiB',
      OS: 'Debian GNU/Linux 12',
      Kernel: '6.1.0-rpi7',
      Python: '3.11.2',
      Agent: '0.4.0',
      Libraries: 'paho-mqtt 2.1.0, pycryptodome 3.21.0',
      'Network emulation': 'netem: unavailable (needs root (tc qdisc))userspace: available',
    });
    const health = screen.getByRole('region', { name: 'Last health check of pi-lab-1' });
    expect(health).toHaveTextContent('failed');
    expect(within(health).getByRole('list', { name: 'Health checks of pi-lab-1' })).toHaveTextContent(
      '✗ clock: offset 900 ms',
    );

    await user.click(toggle);
    expect(screen.queryByRole('region', { name: 'Last health check of pi-lab-1' })).not.toBeInTheDocument();
  });

  it('should show a new enrollment token with the agent command', async () => {
    const { user } = renderApp('/devices');

    await user.click(await screen.findByRole('button', { name: 'New enrollment token' }));

    expect(await screen.findByText('enroll-abc123')).toBeInTheDocument();
    expect(
      screen.getByText(
        `iotsecbench-agent enroll --server ${window.location.origin} --token enroll-abc123 --state-dir ~/.iotsecbench-agent`,
      ),
    ).toBeInTheDocument();
  });

  it('should revoke a device after a second click and drop it from the list', async () => {
    const { user } = renderApp('/devices');

    const row = await deviceRow('pi-lab-2');
    await user.click(within(row).getByRole('button', { name: 'Revoke' }));
    expect(within(row).getByText('Revoke pi-lab-2? Its agent stops working and gets no more runs.')).toBeInTheDocument();
    // The first click only asks.
    expect(db.devices.map((d) => d.name)).toEqual(['pi-lab-1', 'pi-lab-2']);

    await user.click(within(row).getByRole('button', { name: 'Yes, revoke' }));

    const table = screen.getByRole('table', { name: 'Enrolled devices' });
    await vi.waitFor(() => expect(within(table).queryByRole('row', { name: /pi-lab-2/ })).not.toBeInTheDocument());
    expect(within(table).getByRole('row', { name: /pi-lab-1/ })).toBeInTheDocument();
    expect(db.devices.map((d) => d.name)).toEqual(['pi-lab-1']);
  });

  it('should keep a device when its revocation is not confirmed', async () => {
    const { user } = renderApp('/devices');

    const row = await deviceRow('pi-lab-1');
    await user.click(within(row).getByRole('button', { name: 'Revoke' }));
    await user.click(within(row).getByRole('button', { name: 'Keep it' }));

    expect(within(row).getByRole('button', { name: 'Revoke' })).toBeInTheDocument();
    expect(within(row).queryByRole('button', { name: 'Yes, revoke' })).not.toBeInTheDocument();
    expect(db.devices).toHaveLength(2);
    expect(db.csrfHeaders).toHaveLength(0);
  });

  it('should show why a device with queued or running runs cannot be revoked', async () => {
    const pi2 = deviceFixture({ id: PI_2, name: 'pi-lab-2' });
    const running = runFixture({
      id: 'r0000000-0000-4000-8000-000000000009',
      status: 'running',
      devices: [{ device_id: pi2.id, name: pi2.name, status: 'running', sent: 1, received: 1, total: 10, records_ingested: 0, error: '', facts: {}, network: null, clock: null, resources: null }],
    });
    db.runs.push(running);
    const { user } = renderApp('/devices');

    const row = await deviceRow('pi-lab-2');
    await user.click(within(row).getByRole('button', { name: 'Revoke' }));
    await user.click(within(row).getByRole('button', { name: 'Yes, revoke' }));

    expect(await within(row).findByRole('alert')).toHaveTextContent(deviceBusyMessage('pi-lab-2', [running.id]));
    expect(within(screen.getByRole('table', { name: 'Enrolled devices' })).getByRole('row', { name: /pi-lab-2/ })).toBeInTheDocument();
    expect(db.devices).toHaveLength(2);
  });
});
