import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db, experimentFixture } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { captureCreateBody, renderNewExperimentForm as renderForm } from '@/testing/new-experiment-form';
import { renderApp, screen, within } from '@/testing/test-utils';

// The "Addressing and target" group of the new-experiment form and the experiment's page
// (docs/experiment-design.md, "Topics and targets"). The rest of the form: experiment-new.test.tsx.

const ADDRESS_LABELS = ['Topic', 'External broker', 'Predefined topic id', 'CoAP URL', 'MQTT-SN gateway'];
const TOPIC_ERROR = 'On the platform’s broker a device may only use its own topics: end the topic with the level {device}.';

const shownAddressLabels = () => {
  const group = screen.queryByRole('group', { name: 'Addressing and target' });
  if (!group) return [];
  return ADDRESS_LABELS.filter((label) => within(group).queryByLabelText(label));
};

describe('New experiment page: addressing and target', () => {
  it('should offer each field only for the protocol that has it', async () => {
    const { user } = await renderForm();
    const protocol = screen.getByRole('combobox', { name: 'Protocol' });

    expect(shownAddressLabels()).toEqual(['Topic', 'External broker']);
    await user.selectOptions(protocol, 'SRUP (signed MQTT)');
    expect(shownAddressLabels()).toEqual(['External broker']);
    await user.selectOptions(protocol, 'CoAP');
    expect(shownAddressLabels()).toEqual(['CoAP URL']);
    await user.selectOptions(protocol, 'MQTT-SN');
    expect(shownAddressLabels()).toEqual(['MQTT-SN gateway']);
    await user.selectOptions(screen.getByRole('combobox', { name: 'MQTT-SN topic id type' }), 'Predefined');
    expect(shownAddressLabels()).toEqual(['Predefined topic id', 'MQTT-SN gateway']);
  });

  it('should say what an empty field means', async () => {
    await renderForm();

    expect(screen.getByRole('textbox', { name: 'Topic' })).toHaveAccessibleDescription(
      expect.stringContaining('Empty: the per-run data topic iotsecbench/data/<run>/<device>.'),
    );
    expect(screen.getByRole('textbox', { name: 'External broker' })).toHaveAccessibleDescription(
      expect.stringContaining('Empty: the platform’s broker.'),
    );
  });

  it('should send the topic and broker when filled, and none of the fields when empty', async () => {
    const sent = captureCreateBody();
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Default address');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('heading', { name: 'Default address' })).toBeInTheDocument();
    for (const field of ['topic', 'broker_url', 'mqttsn_topic_id', 'coap_url', 'mqttsn_gateway']) {
      expect(sent.body).not.toHaveProperty(field);
    }
  });

  it('should show the server’s topic error at the topic field', async () => {
    server.use(
      http.post('/api/experiments/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { topic: [TOPIC_ERROR] },
        }),
      ),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Literal topic');
    const topic = screen.getByRole('textbox', { name: 'Topic' });
    await user.type(topic, 'test/d1');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Some fields are invalid');
    expect(topic).toHaveAttribute('aria-invalid', 'true');
    expect(topic).toHaveAccessibleDescription(expect.stringContaining(TOPIC_ERROR));
    expect(db.experiments).toHaveLength(0);
  });
});

describe('Experiment page: addressing and target', () => {
  it('should list the addressing the design sets, and nothing of it otherwise', async () => {
    db.experiments.push(
      experimentFixture({ name: 'Own broker', topic: 'test/d1', broker_url: 'mqtt://broker.example:1883' }),
      experimentFixture({ id: 'e0000000-0000-4000-8000-0000000000a2', name: 'Default' }),
    );
    const { unmount } = renderApp(`/experiments/${db.experiments[0]!.id}`);

    let parameters = await screen.findByRole('region', { name: 'Parameters' });
    expect(within(parameters).getByText('test/d1')).toBeInTheDocument();
    expect(within(parameters).getByText('mqtt://broker.example:1883')).toBeInTheDocument();
    expect(within(parameters).queryByText('CoAP URL')).not.toBeInTheDocument();
    unmount();

    renderApp(`/experiments/${db.experiments[1]!.id}`);
    parameters = await screen.findByRole('region', { name: 'Parameters' });
    for (const label of ADDRESS_LABELS) expect(within(parameters).queryByText(label)).not.toBeInTheDocument();
  });
});
