import { describe, expect, it } from 'vitest';

import { renderApp, screen, within } from '@/testing/test-utils';

describe('Devices page', () => {
  it('should list the workspace devices with their facts', async () => {
    renderApp('/devices');

    expect(await screen.findByRole('heading', { name: 'Devices' })).toBeInTheDocument();
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3); // header + 2 devices

    const first = within(table).getByRole('row', { name: /pi-lab-1/ });
    expect(within(first).getByRole('cell', { name: 'Online' })).toBeInTheDocument();
    expect(within(first).getByRole('cell', { name: 'Cortex-A72' })).toBeInTheDocument();
    expect(within(first).getByRole('cell', { name: '4.0 GiB' })).toBeInTheDocument();
    expect(within(first).getByRole('cell', { name: '3.11.2' })).toBeInTheDocument();

    const second = within(table).getByRole('row', { name: /pi-lab-2/ });
    expect(within(second).getByRole('cell', { name: 'Offline' })).toBeInTheDocument();
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
});
