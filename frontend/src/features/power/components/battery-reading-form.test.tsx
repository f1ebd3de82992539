import { QueryClientProvider } from '@tanstack/react-query';
import { userEvent } from '@testing-library/user-event';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { createTestQueryClient, render, screen, waitFor, within } from '@/testing/test-utils';

import { BatteryReadingForm } from './battery-reading-form';

const RUN_ID = 'c0000000-0000-4000-8000-000000000001';
const DEVICES = [{ id: 'd0000000-0000-4000-8000-000000000001', name: 'pixel-7' }];

const showForm = () => {
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={createTestQueryClient()}>
      <BatteryReadingForm runId={RUN_ID} devices={DEVICES} />
    </QueryClientProvider>,
  );
  return user;
};

describe('BatteryReadingForm', () => {
  it('should record a reading and list its energy as mAh × 3.6 × V', async () => {
    const user = showForm();
    const form = screen.getByRole('form', { name: 'Battery reading' });
    await user.selectOptions(within(form).getByLabelText('Device'), 'pixel-7');
    await user.type(within(form).getByLabelText('Charge used (mAh)'), '10');
    await user.type(within(form).getByLabelText('Battery voltage (V)'), '3.82');
    await user.click(within(form).getByRole('button', { name: 'Record reading' }));

    const table = await screen.findByRole('table', { name: 'Battery-gauge readings of this run' });
    // 10 × 3.6 × 3.82 = 137.52 J
    const row = await within(table).findByRole('row', { name: /^pixel-7/ });
    expect(row).toHaveTextContent(/137\.52/);
    expect(db.batteryReadings).toMatchObject([
      { run: RUN_ID, device: DEVICES[0]?.id, charge_mah: 10, voltage_v: 3.82 },
    ]);
  });

  it('should remove a reading after a second click and keep the others', async () => {
    const user = showForm();
    const form = screen.getByRole('form', { name: 'Battery reading' });
    await user.type(within(form).getByLabelText('Charge used (mAh)'), '10');
    await user.type(within(form).getByLabelText('Battery voltage (V)'), '3.82');
    await user.click(within(form).getByRole('button', { name: 'Record reading' }));
    await user.selectOptions(within(form).getByLabelText('Device'), 'pixel-7');
    await user.type(within(form).getByLabelText('Charge used (mAh)'), '5');
    await user.type(within(form).getByLabelText('Battery voltage (V)'), '3.7');
    await user.click(within(form).getByRole('button', { name: 'Record reading' }));
    const table = await screen.findByRole('table', { name: 'Battery-gauge readings of this run' });
    const row = await within(table).findByRole('row', { name: /^pixel-7/ });

    await user.click(within(row).getByRole('button', { name: 'Remove' }));
    expect(db.batteryReadings).toHaveLength(2); // nothing gone before the second click
    await user.click(within(row).getByRole('button', { name: 'Yes, remove' }));

    await waitFor(() => expect(within(table).queryByRole('row', { name: /^pixel-7/ })).not.toBeInTheDocument());
    expect(db.batteryReadings).toMatchObject([{ run: RUN_ID, device: null, charge_mah: 10 }]);
  });

  it('should name an out-of-range field before sending anything', async () => {
    const user = showForm();
    const form = screen.getByRole('form', { name: 'Battery reading' });
    await user.type(within(form).getByLabelText('Charge used (mAh)'), '0');
    await user.type(within(form).getByLabelText('Battery voltage (V)'), '3.7');
    await user.click(within(form).getByRole('button', { name: 'Record reading' }));

    expect(await within(form).findByText('The charge must be more than 0 mAh.')).toBeInTheDocument();
    expect(db.batteryReadings).toEqual([]);
  });

  it("should show the server's refusal at the field it names", async () => {
    server.use(
      http.post('/api/power-traces/battery-readings/', () =>
        errorResponse(400, 'power_battery_reading_invalid', 'Device pixel-7 took no part in run.', {
          field: 'device',
        }),
      ),
    );
    const user = showForm();
    const form = screen.getByRole('form', { name: 'Battery reading' });
    await user.selectOptions(within(form).getByLabelText('Device'), 'pixel-7');
    await user.type(within(form).getByLabelText('Charge used (mAh)'), '5');
    await user.type(within(form).getByLabelText('Battery voltage (V)'), '3.7');
    await user.click(within(form).getByRole('button', { name: 'Record reading' }));

    expect(await within(form).findByText('Device pixel-7 took no part in run.')).toBeInTheDocument();
    expect(within(form).getByLabelText('Device')).toHaveAttribute('aria-invalid', 'true');
  });
});
