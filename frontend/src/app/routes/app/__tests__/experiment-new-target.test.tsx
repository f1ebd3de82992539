import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db, deviceFixture, experimentFixture } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { captureCreateBody, renderNewExperimentForm as renderForm } from '@/testing/new-experiment-form';
import { renderApp, screen, within } from '@/testing/test-utils';

// The target device of the "Addressing and target" group (docs/experiment-design.md,
// "Topics and targets"): another device of the workspace serving MQTT-SN and CoAP runs.

const GATEWAY = deviceFixture({ id: '5d1c0d9e-0000-4000-8000-0000000000f1', name: 'gateway-pi' });
const CLIENT_ERROR = 'The target device cannot also be one of the run’s devices: choose another device.';

const targetSelect = () => screen.getByRole('combobox', { name: 'Target device' });

describe('New experiment page: target device', () => {
  it('should offer the workspace’s other devices as the CoAP server, hiding the CoAP URL once one is chosen', async () => {
    db.devices.push(GATEWAY);
    const { user } = await renderForm();

    expect(screen.queryByRole('combobox', { name: 'Target device' })).not.toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Protocol' }), 'CoAP');
    // pi-lab-1 and gateway-pi are online, so both are checked as the runs' devices.
    expect(within(targetSelect()).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'None (the agent’s own gateway or server)',
      'pi-lab-2 (offline)',
    ]);
    await user.click(screen.getByRole('checkbox', { name: 'gateway-pi' }));
    expect(within(targetSelect()).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'None (the agent’s own gateway or server)',
      'pi-lab-2 (offline)',
      'gateway-pi',
    ]);
    expect(screen.getByRole('textbox', { name: 'CoAP URL' })).toBeInTheDocument();
    expect(screen.queryByRole('textbox', { name: 'Target host' })).not.toBeInTheDocument();

    await user.selectOptions(targetSelect(), 'gateway-pi');
    expect(screen.queryByRole('textbox', { name: 'CoAP URL' })).not.toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Target host' })).toBeInTheDocument();
  });

  it('should send the chosen target and its host, and not the gateway typed before', async () => {
    db.devices.push(GATEWAY);
    const sent = captureCreateBody();
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Gateway Pi');
    await user.click(screen.getByRole('checkbox', { name: 'gateway-pi' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Protocol' }), 'MQTT-SN');
    await user.type(screen.getByRole('textbox', { name: 'MQTT-SN gateway' }), '192.0.2.1:10000');
    await user.selectOptions(targetSelect(), 'gateway-pi');
    await user.type(screen.getByRole('textbox', { name: 'Target host' }), '10.0.0.5');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'Gateway Pi' })).toBeInTheDocument();
    expect(sent.body).toMatchObject({ protocol: 'mqttsn', target_device: GATEWAY.id, target_host: '10.0.0.5' });
    expect(sent.body).not.toHaveProperty('mqttsn_gateway');
  });

  it('should send neither field for None, nor for a protocol without targets', async () => {
    const sent = captureCreateBody();
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Own gateway');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Protocol' }), 'MQTT-SN');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'Own gateway' })).toBeInTheDocument();
    expect(sent.body).not.toHaveProperty('target_device');
    expect(sent.body).not.toHaveProperty('target_host');
  });

  it('should show the server’s error on the target device at its field', async () => {
    db.devices.push(GATEWAY);
    server.use(
      http.post('/api/experiments/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { target_device: [CLIENT_ERROR] },
        }),
      ),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Refused target');
    await user.click(screen.getByRole('checkbox', { name: 'gateway-pi' }));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Protocol' }), 'CoAP');
    await user.selectOptions(targetSelect(), 'gateway-pi');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Some fields are invalid');
    expect(targetSelect()).toHaveAttribute('aria-invalid', 'true');
    expect(targetSelect()).toHaveAccessibleDescription(expect.stringContaining(CLIENT_ERROR));
    expect(db.experiments).toHaveLength(0);
  });

  it('should keep a cloned design’s target device and host', async () => {
    db.devices.push(GATEWAY);
    const design = experimentFixture({
      protocol: 'coap',
      device_ids: ['5d1c0d9e-0000-4000-8000-000000000001'],
      target_device: GATEWAY.id,
      target_host: '10.0.0.5',
    });
    db.experiments.push(design);
    renderApp(`/experiments/new?from=${design.id}`);

    expect(await screen.findByRole('combobox', { name: 'Target device' })).toHaveValue(GATEWAY.id);
    expect(screen.getByRole('textbox', { name: 'Target host' })).toHaveValue('10.0.0.5');
    expect(screen.queryByRole('textbox', { name: 'CoAP URL' })).not.toBeInTheDocument();
  });
});

describe('Experiment page: target device', () => {
  it('should name the target device, linking to the devices page', async () => {
    db.devices.push(GATEWAY);
    db.experiments.push(experimentFixture({ protocol: 'mqttsn', target_device: GATEWAY.id, target_host: '10.0.0.5' }));
    renderApp(`/experiments/${db.experiments[0]!.id}`);

    const parameters = await screen.findByRole('region', { name: 'Parameters' });
    expect(await within(parameters).findByRole('link', { name: 'gateway-pi' })).toHaveAttribute('href', '/devices');
    expect(within(parameters).queryByText(GATEWAY.id)).not.toBeInTheDocument();
    expect(within(parameters).getByText('10.0.0.5')).toBeInTheDocument();
  });
});
