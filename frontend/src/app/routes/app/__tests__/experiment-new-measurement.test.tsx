import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { captureCreateBody, renderNewExperimentForm as renderForm } from '@/testing/new-experiment-form';
import { screen, within } from '@/testing/test-utils';

// The measurement choice of the new-experiment form: round trip, one way for the broker
// protocols, acknowledgement time for MQTT and CoAP (docs/experiment-design.md). The rest of
// the form: experiment-new.test.tsx.

// The backend's message (experiments/rules.py ONE_WAY_PROTOCOLS).
const ONE_WAY_PROTOCOLS =
  'One-way delay is measured for MQTT and SRUP (the platform sends through the broker); measure CoAP and MQTT-SN as round trips.';

const ACK = 'Acknowledgement (MQTT publish to PUBACK/PUBCOMP, MQTT-SN PUBLISH to PUBACK, CoAP CON to ACK)';
// The backend's message (experiments/rules.py ACK_NEEDS_QOS with QoS 0).
const ACK_NEEDS_QOS =
  'QoS 0 has no acknowledgement to time: measurement "ack" needs QoS 1 (publish to PUBACK) or QoS 2 (publish to PUBCOMP); set qos to 1 or 2, or measure a round trip.';

const measurementOptions = () =>
  within(screen.getByRole('combobox', { name: 'Measurement' }))
    .getAllByRole('option')
    .map((option) => option.textContent);

describe('New experiment page: measurement', () => {
  it('should offer one-way measurement for MQTT and SRUP and send it', async () => {
    const sent = captureCreateBody();
    const { user } = await renderForm();

    expect(measurementOptions()).toEqual(['Round trip', 'One way (controller to device)', ACK]);
    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'SRUP one way');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Measurement' }), 'One way (controller to device)');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Protocol' }), 'SRUP (signed MQTT)');

    expect(measurementOptions()).toEqual(['Round trip', 'One way (controller to device)']);
    expect(screen.getByRole('combobox', { name: 'Measurement' })).toHaveDisplayValue('One way (controller to device)');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'SRUP one way' })).toBeInTheDocument();
    expect(sent.body).toMatchObject({ protocol: 'srup', measurement: 'one_way' });
    expect(screen.getByText('Measurement').nextElementSibling).toHaveTextContent('One way (controller to device)');
  });

  it('should hide one-way measurement for CoAP and MQTT-SN and send a round trip', async () => {
    const sent = captureCreateBody();
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'CoAP baseline');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Measurement' }), 'One way (controller to device)');
    const protocol = screen.getByRole('combobox', { name: 'Protocol' });

    await user.selectOptions(protocol, 'MQTT-SN');
    expect(measurementOptions()).toEqual(['Round trip', ACK]);
    expect(screen.getByRole('combobox', { name: 'Measurement' })).toHaveDisplayValue('Round trip');

    await user.selectOptions(protocol, 'CoAP');
    expect(measurementOptions()).toEqual(['Round trip', ACK]);
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'CoAP baseline' })).toBeInTheDocument();
    expect(sent.body).toMatchObject({ protocol: 'coap', measurement: 'round_trip' });
  });

  it('should offer acknowledgement time for MQTT, MQTT-SN and CoAP only and send it', async () => {
    const sent = captureCreateBody();
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'CON to ACK');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Measurement' }), ACK);
    const protocol = screen.getByRole('combobox', { name: 'Protocol' });
    await user.selectOptions(protocol, 'SRUP (signed MQTT)');
    expect(measurementOptions()).toEqual(['Round trip', 'One way (controller to device)']);
    expect(screen.getByRole('combobox', { name: 'Measurement' })).toHaveDisplayValue('Round trip');

    await user.selectOptions(protocol, 'MQTT-SN');
    expect(measurementOptions()).toEqual(['Round trip', ACK]);
    await user.selectOptions(protocol, 'CoAP');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Measurement' }), ACK);
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'CON to ACK' })).toBeInTheDocument();
    expect(sent.body).toMatchObject({ protocol: 'coap', measurement: 'ack' });
    expect(screen.getByText('Measurement').nextElementSibling).toHaveTextContent(ACK);
  });

  it('should show the server error about QoS 0 acknowledgement next to the QoS', async () => {
    server.use(
      http.post('/api/experiments/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { qos: [ACK_NEEDS_QOS] },
        }),
      ),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'QoS 0 ack');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Measurement' }), ACK);
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Some fields are invalid');
    expect(screen.getByRole('combobox', { name: 'QoS' })).toHaveAccessibleDescription(ACK_NEEDS_QOS);
    expect(db.experiments).toHaveLength(0);
  });

  it('should show the server field error about one-way measurement next to the measurement', async () => {
    server.use(
      http.post('/api/experiments/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { measurement: [ONE_WAY_PROTOCOLS] },
        }),
      ),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'One way');
    const measurement = screen.getByRole('combobox', { name: 'Measurement' });
    await user.selectOptions(measurement, 'One way (controller to device)');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Some fields are invalid');
    expect(measurement).toHaveAttribute('aria-invalid', 'true');
    expect(measurement).toHaveAccessibleDescription(ONE_WAY_PROTOCOLS);
    expect(screen.getByRole('combobox', { name: 'Protocol' })).not.toHaveAttribute('aria-invalid');
    expect(db.experiments).toHaveLength(0);

    // Changing the measurement clears its error.
    await user.selectOptions(measurement, 'Round trip');
    expect(measurement).not.toHaveAttribute('aria-invalid');
  });
});
