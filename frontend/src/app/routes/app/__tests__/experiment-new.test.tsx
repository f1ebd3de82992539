import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { renderApp, screen } from '@/testing/test-utils';

const renderForm = async () => {
  const view = renderApp('/experiments/new');
  expect(await screen.findByRole('heading', { name: 'New experiment' })).toBeInTheDocument();
  await screen.findByRole('group', { name: 'Devices' });
  return view;
};

describe('New experiment page', () => {
  it('should offer the documented fields and defaults', async () => {
    await renderForm();

    expect(screen.getByRole('textbox', { name: 'Name' })).toHaveValue('');
    expect(screen.getByRole('combobox', { name: 'Protocol' })).toHaveDisplayValue('MQTT');
    expect(screen.getByRole('combobox', { name: 'QoS' })).toHaveDisplayValue('1');
    expect(screen.getByRole('combobox', { name: 'Payload security' })).toHaveDisplayValue('None');
    expect(screen.getByRole('spinbutton', { name: 'Payload size (bytes)' })).toHaveValue(66);
    expect(screen.getByRole('spinbutton', { name: 'Messages per device' })).toHaveValue(100);
    expect(screen.getByRole('spinbutton', { name: 'Interval between messages (ms)' })).toHaveValue(0);
    expect(screen.getByRole('combobox', { name: 'Measurement' })).toHaveDisplayValue('Round trip');
    // Online devices are pre-selected, offline ones are marked.
    expect(screen.getByRole('checkbox', { name: 'pi-lab-1' })).toBeChecked();
    expect(screen.getByRole('checkbox', { name: 'pi-lab-2 (offline)' })).not.toBeChecked();
    expect(screen.getByRole('button', { name: 'Create' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create and run' })).toBeInTheDocument();
  });

  it('should validate on the client before sending anything', async () => {
    const { user } = await renderForm();

    const payload = screen.getByRole('spinbutton', { name: 'Payload size (bytes)' });
    await user.clear(payload);
    await user.type(payload, '70000');
    await user.click(screen.getByRole('checkbox', { name: 'pi-lab-1' }));
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Please correct the highlighted fields.');
    const name = screen.getByRole('textbox', { name: 'Name' });
    expect(name).toHaveAttribute('aria-invalid', 'true');
    expect(name).toHaveAccessibleDescription('Enter a name.');
    expect(payload).toHaveAttribute('aria-invalid', 'true');
    expect(payload).toHaveAccessibleDescription('Payload size must be at most 65536 bytes.');
    expect(screen.getByRole('group', { name: 'Devices' })).toHaveAccessibleDescription(
      'Select at least one device.',
    );
    expect(db.experiments).toHaveLength(0);
    expect(db.csrfHeaders).toHaveLength(0);
  });

  it('should show server field errors next to their fields', async () => {
    server.use(
      http.post('/api/experiments/', () =>
        errorResponse(400, 'validation_error', 'Invalid input.', {
          fields: {
            payload_size: ['Ensure this value is less than or equal to 65536.'],
            non_field_errors: ['Device pi-lab-1 is busy.'],
          },
        }),
      ),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Baseline');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid input. Device pi-lab-1 is busy.');
    const payload = screen.getByRole('spinbutton', { name: 'Payload size (bytes)' });
    expect(payload).toHaveAttribute('aria-invalid', 'true');
    expect(payload).toHaveAccessibleDescription('Ensure this value is less than or equal to 65536.');
    expect(screen.getByRole('textbox', { name: 'Name' })).not.toHaveAttribute('aria-invalid');
  });

  it('should create an experiment and open it', async () => {
    const { user, router } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Baseline');
    await user.selectOptions(screen.getByRole('combobox', { name: 'QoS' }), '2');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'Baseline' })).toBeInTheDocument();
    expect(db.experiments).toEqual([
      expect.objectContaining({
        name: 'Baseline',
        protocol: 'mqtt',
        qos: 2,
        security: 'none',
        payload_size: 66,
        message_count: 100,
        interval_ms: 0,
        measurement: 'round_trip',
        device_ids: ['5d1c0d9e-0000-4000-8000-000000000001'],
      }),
    ]);
    expect(router.state.location.pathname).toBe(`/experiments/${db.experiments[0]?.id}`);
  });

  it('should create, start a run and open the run page with "Create and run"', async () => {
    const { user, router } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Run me');
    await user.click(screen.getByRole('button', { name: 'Create and run' }));

    expect(await screen.findByRole('heading', { name: 'Run: Run me' })).toBeInTheDocument();
    expect(db.runs).toHaveLength(1);
    expect(router.state.location.pathname).toBe(`/runs/${db.runs[0]?.id}`);
  });
});
