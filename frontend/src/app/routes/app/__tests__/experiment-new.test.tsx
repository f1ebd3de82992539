import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db } from '@/testing/mocks/db';
import { errorResponse, TEST_INTERVAL_SEED } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { renderNewExperimentForm as renderForm } from '@/testing/new-experiment-form';
import { screen, within } from '@/testing/test-utils';

/** What a design without a matrix sends besides its fields. */
const NO_MATRIX = { axes: [], exclusions: [], repeats: 1, description: '', description_generated: false, preset: '' };

const renderBenchForm = async () => {
  const view = await renderForm();
  await view.user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'Cipher benchmark');
  return view;
};

const renderThroughputForm = async () => {
  const view = await renderForm();
  await view.user.selectOptions(
    screen.getByRole('combobox', { name: 'Kind' }),
    'Throughput (secured packets per window)',
  );
  return view;
};

describe('New experiment page', () => {
  it('should offer the documented fields and defaults', async () => {
    await renderForm();

    expect(screen.getByRole('textbox', { name: 'Name' })).toHaveValue('');
    const kind = screen.getByRole('combobox', { name: 'Kind' });
    expect(kind).toHaveDisplayValue('Messaging round trip');
    expect(within(kind).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Messaging round trip',
      'Cipher benchmark',
      'Throughput (secured packets per window)',
    ]);
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

  it('should offer the MQTT version and interval distribution, defaulting to 3.1.1 and fixed', async () => {
    await renderForm();

    const version = screen.getByRole('combobox', { name: 'MQTT version' });
    expect(version).toHaveDisplayValue('MQTT 3.1.1');
    expect(within(version).getAllByRole('option').map((o) => o.textContent)).toEqual(['MQTT 3.1.1', 'MQTT 5']);
    const distribution = screen.getByRole('combobox', { name: 'Interval distribution' });
    expect(distribution).toHaveDisplayValue('Fixed');
    expect(within(distribution).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Fixed',
      'Uniform random (0 to 2 x interval)',
      'Exponential (Poisson arrivals)',
    ]);
    expect(distribution).toHaveAccessibleDescription(
      expect.stringMatching(/interval as their mean.*each run stores its random seed/),
    );
  });

  it('should send the chosen MQTT version and interval distribution, and show the run\'s seed', async () => {
    let sent: unknown;
    server.use(
      http.post('/api/experiments/', async ({ request }) => {
        sent = await request.clone().json();
        // Falls through to the fake backend's handler.
      }),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Poisson arrivals');
    await user.selectOptions(screen.getByRole('combobox', { name: 'MQTT version' }), 'MQTT 5');
    const interval = screen.getByRole('spinbutton', { name: 'Interval between messages (ms)' });
    await user.clear(interval);
    await user.type(interval, '500');
    await user.selectOptions(
      screen.getByRole('combobox', { name: 'Interval distribution' }),
      'Exponential (Poisson arrivals)',
    );
    await user.click(screen.getByRole('button', { name: 'Create and run' }));

    expect(await screen.findByRole('heading', { name: 'Run: Poisson arrivals' })).toBeInTheDocument();
    expect(sent).toEqual({
      kind: 'messaging',
      name: 'Poisson arrivals',
      protocol: 'mqtt',
      srup_signature: 'rsa-2048',
      mqtt_version: '5',
      transport: 'tcp',
      qos: 1,
      coap_type: 'con',
      coap_method: 'get',
      topic_id_type: 'normal',
      security: 'none',
      interleave_mechanisms: [],
      payload_size: 66,
      message_count: 100,
      interval_ms: 500,
      interval_distribution: 'exponential',
      measurement: 'round_trip',
      device_ids: ['5d1c0d9e-0000-4000-8000-000000000001'],
      ...NO_MATRIX,
    });
    expect(db.runs).toHaveLength(1);
    expect(db.runs[0]?.spec).toMatchObject({
      mqtt_version: '5',
      interval_ms: 500,
      interval_distribution: 'exponential',
      interval_seed: TEST_INTERVAL_SEED,
    });
    expect(
      screen.getByText(`Interval: exponential, mean 500 ms, seed ${TEST_INTERVAL_SEED}`),
    ).toBeInTheDocument();
  });

  it('should show an interval distribution error from the server next to its field', async () => {
    server.use(
      http.post('/api/experiments/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { interval_distribution: ['"exponential" is not a valid choice.'] },
        }),
      ),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Poisson arrivals');
    await user.selectOptions(
      screen.getByRole('combobox', { name: 'Interval distribution' }),
      'Exponential (Poisson arrivals)',
    );
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Some fields are invalid');
    expect(screen.getByRole('alert')).not.toHaveTextContent('not a valid choice');
    const distribution = screen.getByRole('combobox', { name: 'Interval distribution' });
    expect(distribution).toHaveAttribute('aria-invalid', 'true');
    // After the hint, which stays.
    expect(distribution).toHaveAccessibleDescription(
      expect.stringMatching(/random seed\. "exponential" is not a valid choice\.$/),
    );
    expect(screen.getByRole('combobox', { name: 'MQTT version' })).not.toHaveAttribute('aria-invalid');

    // Choosing again clears the error.
    await user.selectOptions(distribution, 'Fixed');
    expect(distribution).not.toHaveAttribute('aria-invalid');
  });

  it('should offer the transport next to the MQTT version, defaulting to TCP', async () => {
    await renderForm();

    const transport = screen.getByRole('combobox', { name: 'Transport' });
    expect(transport).toHaveDisplayValue('MQTT over TCP');
    expect(within(transport).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'MQTT over TCP',
      'MQTT over TLS 1.2',
      'MQTT over TLS 1.3',
    ]);
    // Right after the MQTT version, in its row.
    const version = screen.getByRole('combobox', { name: 'MQTT version' });
    const selects = screen.getAllByRole('combobox');
    expect(selects.indexOf(transport)).toBe(selects.indexOf(version) + 1);
    expect(transport.closest('.field-row')).toBe(version.closest('.field-row'));
  });

  it('should send the chosen transport and dispatch the run with it', async () => {
    let sent: unknown;
    server.use(
      http.post('/api/experiments/', async ({ request }) => {
        sent = await request.clone().json();
        // Falls through to the fake backend's handler.
      }),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'TLS 1.3 baseline');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Transport' }), 'MQTT over TLS 1.3');
    await user.click(screen.getByRole('button', { name: 'Create and run' }));

    expect(await screen.findByRole('heading', { name: 'Run: TLS 1.3 baseline' })).toBeInTheDocument();
    expect(sent).toMatchObject({ kind: 'messaging', name: 'TLS 1.3 baseline', mqtt_version: '3.1.1', transport: 'tls1.3' });
    expect(db.experiments[0]).toMatchObject({ transport: 'tls1.3' });
    expect(db.runs[0]?.spec).toMatchObject({ transport: 'tls1.3' });
  });

  it('should swap payload security for the SRUP signature and send SRUP with no payload security', async () => {
    let sent: unknown;
    server.use(
      http.post('/api/experiments/', async ({ request }) => {
        sent = await request.clone().json();
      }),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'SRUP Ed25519');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Payload security' }), 'AES-128-CBC');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Protocol' }), 'SRUP (signed MQTT)');
    expect(screen.queryByRole('combobox', { name: 'Payload security' })).not.toBeInTheDocument();
    const signature = screen.getByRole('combobox', { name: 'SRUP signature' });
    expect(signature).toHaveDisplayValue('RSA-2048 (PKCS#1 v1.5, SHA-256)');
    await user.selectOptions(signature, 'Ed25519');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'SRUP Ed25519' })).toBeInTheDocument();
    expect(sent).toMatchObject({ protocol: 'srup', srup_signature: 'ed25519', security: 'none' });
    expect(screen.getByText('SRUP signature').nextElementSibling).toHaveTextContent('Ed25519');
  });

  it('should show the missing TLS broker error from the server on the transport field', async () => {
    const message =
      'This platform has no TLS broker: set MQTT_TLS_URL and MQTT_TLS_CA_FILE (make up does), or choose MQTT over TCP.';
    server.use(
      http.post('/api/experiments/', () =>
        errorResponse(400, 'tls_broker_not_configured', message, { fields: { transport: [message] } }),
      ),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'TLS 1.2 baseline');
    const transport = screen.getByRole('combobox', { name: 'Transport' });
    await user.selectOptions(transport, 'MQTT over TLS 1.2');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('This platform has no TLS broker');
    expect(transport).toHaveAttribute('aria-invalid', 'true');
    expect(transport).toHaveAccessibleDescription(message);
    expect(screen.getByRole('combobox', { name: 'MQTT version' })).not.toHaveAttribute('aria-invalid');
    expect(db.experiments).toHaveLength(0);

    // Choosing TCP clears the error.
    await user.selectOptions(transport, 'MQTT over TCP');
    expect(transport).not.toHaveAttribute('aria-invalid');
  });

  it('should offer every catalogue mechanism as payload security, grouped by family', async () => {
    const { user } = await renderForm();

    const security = screen.getByRole('combobox', { name: 'Payload security' });
    expect(within(security).getAllByRole('group').map((g) => g.getAttribute('label'))).toEqual([
      'None', 'AES', 'DES', 'Stream', 'MAC', 'RSA', 'Elliptic curve', 'Lightweight',
    ]);
    const lightweight = within(security).getByRole('group', { name: 'Lightweight' });
    expect(within(lightweight).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'PRESENT-80-CBC',
      'Ascon-AEAD128 (NIST SP 800-232)',
    ]);

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Secured');
    await user.selectOptions(security, 'AES-256-GCM');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'Secured' })).toBeInTheDocument();
    expect(db.experiments).toEqual([expect.objectContaining({ kind: 'messaging', security: 'aes-256-gcm' })]);
  });

  it('should show a security error from the server next to the payload security', async () => {
    server.use(
      http.post('/api/experiments/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { security: ['"aes-256-gcm" is not a valid choice.'] },
        }),
      ),
    );
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Secured');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Payload security' }), 'AES-256-GCM');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Some fields are invalid');
    const security = screen.getByRole('combobox', { name: 'Payload security' });
    expect(security).toHaveAttribute('aria-invalid', 'true');
    expect(security).toHaveAccessibleDescription('"aes-256-gcm" is not a valid choice.');
  });

  describe('for a cipher benchmark', () => {
    it('should show the benchmark fields instead of the messaging ones', async () => {
      await renderBenchForm();

      for (const name of ['Protocol', 'MQTT version', 'Transport', 'QoS', 'Payload security', 'Interval distribution', 'Measurement']) {
        expect(screen.queryByRole('combobox', { name })).not.toBeInTheDocument();
      }
      for (const name of ['Payload size (bytes)', 'Messages per device', 'Interval between messages (ms)']) {
        expect(screen.queryByRole('spinbutton', { name })).not.toBeInTheDocument();
      }

      const mechanisms = screen.getByRole('group', { name: 'Mechanisms' });
      const families = within(mechanisms).getAllByRole('group');
      expect(families.map((family) => within(family).getAllByRole('checkbox').length)).toEqual([1, 2, 1, 1, 1, 1, 1, 2]);
      expect(within(mechanisms).getByRole('group', { name: 'AES' })).toBeInTheDocument();
      // "none" measures nothing; the "null" floor is offered.
      expect(within(mechanisms).queryByRole('checkbox', { name: 'None' })).not.toBeInTheDocument();
      expect(within(mechanisms).getByRole('checkbox', { name: 'Null (harness floor, no cryptography)' })).not.toBeChecked();
      expect(within(mechanisms).getByRole('checkbox', { name: 'RSA-2048 PKCS#1 v1.5 (SHA-256)' })).not.toBeChecked();

      const sizes = screen.getByRole('textbox', { name: 'Data sizes' });
      expect(sizes).toHaveValue('');
      expect(sizes).toHaveAccessibleDescription(expect.stringContaining('e.g. 16, 1K, 8K, 1M'));
      expect(screen.getByRole('spinbutton', { name: 'Repetitions' })).toHaveValue(100);
      expect(screen.getByRole('checkbox', { name: 'pi-lab-1' })).toBeChecked();
    });

    it('should keep the messaging values when switching kinds back', async () => {
      const { user } = await renderForm();
      const payload = screen.getByRole('spinbutton', { name: 'Payload size (bytes)' });
      await user.clear(payload);
      await user.type(payload, '128');

      await user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'Cipher benchmark');
      await user.type(screen.getByRole('textbox', { name: 'Data sizes' }), '1K');
      await user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'Messaging round trip');

      expect(screen.getByRole('spinbutton', { name: 'Payload size (bytes)' })).toHaveValue(128);
      await user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'Cipher benchmark');
      expect(screen.getByRole('textbox', { name: 'Data sizes' })).toHaveValue('1K');
    });

    it('should validate mechanisms, data sizes and repetitions before sending anything', async () => {
      const { user } = await renderBenchForm();

      await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Bench');
      await user.type(screen.getByRole('textbox', { name: 'Data sizes' }), '16, 12Q, 1K');
      const repetitions = screen.getByRole('spinbutton', { name: 'Repetitions' });
      await user.clear(repetitions);
      await user.type(repetitions, '0');
      await user.click(screen.getByRole('button', { name: 'Create' }));

      expect(await screen.findByRole('alert')).toHaveTextContent('Please correct the highlighted fields.');
      expect(screen.getByRole('group', { name: 'Mechanisms' })).toHaveAccessibleDescription(
        'Choose at least one mechanism.',
      );
      const sizes = screen.getByRole('textbox', { name: 'Data sizes' });
      expect(sizes).toHaveAttribute('aria-invalid', 'true');
      expect(sizes).toHaveAccessibleDescription(expect.stringContaining('Not a size: "12Q".'));
      expect(repetitions).toHaveAttribute('aria-invalid', 'true');
      expect(repetitions).toHaveAccessibleDescription('Repeat at least once.');
      expect(screen.getByRole('textbox', { name: 'Name' })).not.toHaveAttribute('aria-invalid');

      // Readable but out of range, or repeated: the schema's limits apply.
      await user.clear(sizes);
      await user.type(sizes, '16, 2G, 16');
      await user.click(screen.getByRole('button', { name: 'Create' }));

      expect(await screen.findByText(/Each data size must be at most 1 GiB\./)).toBeInTheDocument();
      expect(sizes).toHaveAccessibleDescription(
        expect.stringContaining('Each data size must be at most 1 GiB. Enter each data size only once.'),
      );
      expect(db.experiments).toHaveLength(0);
      expect(db.csrfHeaders).toHaveLength(0);
    });

    it('should show server field errors next to the benchmark fields', async () => {
      server.use(
        http.post('/api/experiments/', () =>
          errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
            fields: {
              mechanisms: ['A cipher benchmark needs at least one mechanism.'],
              // DRF reports list items under their index.
              data_sizes: { '1': ['Ensure this value is less than or equal to 1073741824.'] },
              repetitions: ['Ensure this value is less than or equal to 10000.'],
              payload_size: ['Not shown for a benchmark.'],
            },
          }),
        ),
      );
      const { user } = await renderBenchForm();

      await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Bench');
      await user.click(screen.getByRole('checkbox', { name: 'AES-128-CBC' }));
      await user.type(screen.getByRole('textbox', { name: 'Data sizes' }), '16, 1K');
      await user.click(screen.getByRole('button', { name: 'Create' }));

      // Errors about fields the form does not show go to the alert.
      expect(await screen.findByRole('alert')).toHaveTextContent(
        'Some fields are invalid: correct them and send again. Not shown for a benchmark.',
      );
      expect(screen.getByRole('group', { name: 'Mechanisms' })).toHaveAccessibleDescription(
        'A cipher benchmark needs at least one mechanism.',
      );
      expect(screen.getByRole('checkbox', { name: 'AES-128-CBC' })).toHaveAttribute('aria-invalid', 'true');
      expect(screen.getByRole('textbox', { name: 'Data sizes' })).toHaveAccessibleDescription(
        expect.stringContaining('Item 2: Ensure this value is less than or equal to 1073741824.'),
      );
      expect(screen.getByRole('spinbutton', { name: 'Repetitions' })).toHaveAccessibleDescription(
        'Ensure this value is less than or equal to 10000.',
      );
    });

    it('should create the benchmark, start a run and open it with "Create and run"', async () => {
      let sent: unknown;
      server.use(
        http.post('/api/experiments/', async ({ request }) => {
          sent = await request.clone().json();
          // Falls through to the fake backend's handler.
        }),
      );
      const { user, router } = await renderBenchForm();

      await user.type(screen.getByRole('textbox', { name: 'Name' }), 'OpenSSL on Pi');
      // Clicked out of catalogue order: sent in catalogue order.
      await user.click(screen.getByRole('checkbox', { name: 'Ed25519' }));
      await user.click(screen.getByRole('checkbox', { name: 'AES-128-CBC' }));
      await user.click(screen.getByRole('checkbox', { name: 'PRESENT-80-CBC' }));
      await user.click(screen.getByRole('checkbox', { name: 'Ed25519' }));
      await user.click(screen.getByRole('checkbox', { name: 'RSA-2048 PKCS#1 v1.5 (SHA-256)' }));
      await user.type(screen.getByRole('textbox', { name: 'Data sizes' }), '16, 1K, 8K, 1M');
      const repetitions = screen.getByRole('spinbutton', { name: 'Repetitions' });
      await user.clear(repetitions);
      await user.type(repetitions, '50');
      expect(screen.getByRole('combobox', { name: 'Crypto library' })).toHaveValue('pycryptodome');
      await user.selectOptions(screen.getByRole('combobox', { name: 'Crypto library' }), 'openssl');
      await user.click(screen.getByRole('button', { name: 'Create and run' }));

      expect(await screen.findByRole('heading', { name: 'Run: OpenSSL on Pi' })).toBeInTheDocument();
      // Only the benchmark's fields: the server defaults the messaging ones.
      expect(sent).toEqual({
        kind: 'cipher_bench',
        name: 'OpenSSL on Pi',
        mechanisms: ['aes-128-cbc', 'rsa-2048-pkcs1v15', 'present-80-cbc'],
        data_sizes: [16, 1024, 8192, 1024 ** 2],
        repetitions: 50,
        crypto_library: 'openssl',
        device_ids: ['5d1c0d9e-0000-4000-8000-000000000001'],
        ...NO_MATRIX,
      });
      expect(db.runs).toEqual([
        expect.objectContaining({
          kind: 'cipher_bench',
          spec: {
            mechanisms: ['aes-128-cbc', 'rsa-2048-pkcs1v15', 'present-80-cbc'],
            data_sizes: [16, 1024, 8192, 1024 ** 2],
            repetitions: 50,
            crypto_library: 'openssl',
          },
        }),
      ]);
      expect(router.state.location.pathname).toBe(`/runs/${db.runs[0]?.id}`);
    });
  });

  describe('for a throughput experiment', () => {
    it('should show the throughput fields with the paper\'s defaults and "None" checked', async () => {
      await renderThroughputForm();

      for (const name of ['Protocol', 'MQTT version', 'Transport', 'QoS', 'Payload security', 'Interval distribution', 'Measurement']) {
        expect(screen.queryByRole('combobox', { name })).not.toBeInTheDocument();
      }
      expect(screen.queryByRole('spinbutton', { name: 'Payload size (bytes)' })).not.toBeInTheDocument();
      expect(screen.queryByRole('textbox', { name: 'Data sizes' })).not.toBeInTheDocument();

      // Every catalogue mechanism, "none" included and checked: it is the baseline.
      const mechanisms = screen.getByRole('group', { name: 'Mechanisms' });
      const families = within(mechanisms).getAllByRole('group');
      expect(families.map((family) => within(family).getAllByRole('checkbox').length)).toEqual([2, 2, 1, 1, 1, 1, 1, 2]);
      expect(within(mechanisms).getByRole('checkbox', { name: 'None' })).toBeChecked();
      expect(within(mechanisms).getByRole('checkbox', { name: 'AES-128-CBC' })).not.toBeChecked();
      expect(mechanisms).toHaveAccessibleDescription(expect.stringContaining('relative cost'));

      const sizes = screen.getByRole('textbox', { name: 'Payload sizes' });
      expect(sizes).toHaveValue('1, 1280');
      expect(sizes).toHaveAccessibleDescription(expect.stringContaining('each at most 65507'));
      expect(screen.getByRole('spinbutton', { name: 'Repetitions' })).toHaveValue(10);
      expect(screen.getByRole('spinbutton', { name: 'Window (ms)' })).toHaveValue(2000);
      // The openssl command times files, not packets: not offered for throughput.
      const library = screen.getByRole('combobox', { name: 'Crypto library' });
      expect(library).toHaveValue('pycryptodome');
      expect([...(library as HTMLSelectElement).options].map((o) => o.value)).toEqual(['pycryptodome', 'openssl']);
      expect(screen.getByRole('checkbox', { name: 'pi-lab-1' })).toBeChecked();
    });

    it('should keep its values apart from the cipher benchmark\'s', async () => {
      const { user } = await renderThroughputForm();
      const kind = screen.getByRole('combobox', { name: 'Kind' });
      await user.click(screen.getByRole('checkbox', { name: 'AES-128-CBC' }));

      await user.selectOptions(kind, 'Cipher benchmark');
      // No "None" to offer, nothing carried over.
      expect(screen.queryByRole('checkbox', { name: 'None' })).not.toBeInTheDocument();
      expect(screen.getByRole('checkbox', { name: 'AES-128-CBC' })).not.toBeChecked();
      expect(screen.getByRole('textbox', { name: 'Data sizes' })).toHaveValue('');
      expect(screen.getByRole('spinbutton', { name: 'Repetitions' })).toHaveValue(100);

      await user.selectOptions(kind, 'Throughput (secured packets per window)');
      expect(screen.getByRole('checkbox', { name: 'None' })).toBeChecked();
      expect(screen.getByRole('checkbox', { name: 'AES-128-CBC' })).toBeChecked();
      expect(screen.getByRole('spinbutton', { name: 'Repetitions' })).toHaveValue(10);
    });

    it('should validate the window and the payload sizes before sending anything', async () => {
      const { user } = await renderThroughputForm();

      await user.type(screen.getByRole('textbox', { name: 'Name' }), 'MQTT-SN');
      await user.click(screen.getByRole('checkbox', { name: 'None' }));
      const sizes = screen.getByRole('textbox', { name: 'Payload sizes' });
      await user.clear(sizes);
      await user.type(sizes, '1, 65508');
      const windowMs = screen.getByRole('spinbutton', { name: 'Window (ms)' });
      await user.clear(windowMs);
      await user.type(windowMs, '5');
      await user.click(screen.getByRole('button', { name: 'Create' }));

      expect(await screen.findByRole('alert')).toHaveTextContent('Please correct the highlighted fields.');
      expect(sizes).toHaveAttribute('aria-invalid', 'true');
      expect(sizes).toHaveAccessibleDescription(expect.stringContaining('Each payload size must be at most 65507 bytes.'));
      expect(windowMs).toHaveAttribute('aria-invalid', 'true');
      expect(windowMs).toHaveAccessibleDescription(expect.stringContaining('The window must be at least 10 ms.'));
      // Unchecking "None" left nothing checked; the hint stays next to the error.
      expect(screen.getByRole('group', { name: 'Mechanisms' })).toHaveAccessibleDescription(
        expect.stringMatching(/relative cost .* Choose at least one mechanism\.$/),
      );

      await user.clear(windowMs);
      await user.type(windowMs, '10001');
      await user.click(screen.getByRole('button', { name: 'Create' }));

      expect(await screen.findByText('The window must be at most 10000 ms.')).toBeInTheDocument();
      expect(db.experiments).toHaveLength(0);
      expect(db.csrfHeaders).toHaveLength(0);
    });

    it('should show server field errors next to the throughput fields', async () => {
      server.use(
        http.post('/api/experiments/', () =>
          errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
            fields: {
              data_sizes: ['Throughput packets go in one UDP datagram of at most 65,507 bytes: rsa-4096-pss turns 65,000 bytes into 65,512; use at most 64,995 bytes with it.'],
              window_ms: ['Must be an integer from 10 to 10000.'],
              repetitions: ['Ensure this value is greater than or equal to 1.'],
              security: ['Not shown for a throughput experiment.'],
            },
          }),
        ),
      );
      const { user } = await renderThroughputForm();

      await user.type(screen.getByRole('textbox', { name: 'Name' }), 'MQTT-SN');
      await user.click(screen.getByRole('button', { name: 'Create' }));

      expect(await screen.findByRole('alert')).toHaveTextContent(
        'Some fields are invalid: correct them and send again. Not shown for a throughput experiment.',
      );
      expect(screen.getByRole('textbox', { name: 'Payload sizes' })).toHaveAccessibleDescription(
        expect.stringContaining('Throughput packets go in one UDP datagram of at most 65,507 bytes: rsa-4096-pss turns 65,000 bytes into 65,512; use at most 64,995 bytes with it.'),
      );
      const windowMs = screen.getByRole('spinbutton', { name: 'Window (ms)' });
      expect(windowMs).toHaveAttribute('aria-invalid', 'true');
      expect(windowMs).toHaveAccessibleDescription(
        expect.stringContaining('Must be an integer from 10 to 10000.'),
      );
      expect(screen.getByRole('spinbutton', { name: 'Repetitions' })).toHaveAccessibleDescription(
        'Ensure this value is greater than or equal to 1.',
      );
      expect(screen.getByRole('checkbox', { name: 'None' })).not.toHaveAttribute('aria-invalid');
    });

    it('should create the experiment, start a run and open it with "Create and run"', async () => {
      let sent: unknown;
      server.use(
        http.post('/api/experiments/', async ({ request }) => {
          sent = await request.clone().json();
          // Falls through to the fake backend's handler.
        }),
      );
      const { user, router } = await renderThroughputForm();

      await user.type(screen.getByRole('textbox', { name: 'Name' }), 'MQTT-SN lightweight ciphers');
      // Clicked out of catalogue order: sent in catalogue order, "none" first.
      await user.click(screen.getByRole('checkbox', { name: 'PRESENT-80-CBC' }));
      await user.click(screen.getByRole('checkbox', { name: 'AES-128-CBC' }));
      const sizes = screen.getByRole('textbox', { name: 'Payload sizes' });
      await user.clear(sizes);
      await user.type(sizes, '1, 64, 1280');
      const windowMs = screen.getByRole('spinbutton', { name: 'Window (ms)' });
      await user.clear(windowMs);
      await user.type(windowMs, '1000');
      await user.click(screen.getByRole('button', { name: 'Create and run' }));

      expect(await screen.findByRole('heading', { name: 'Run: MQTT-SN lightweight ciphers' })).toBeInTheDocument();
      // Only the throughput fields: the server defaults the others.
      expect(sent).toEqual({
        kind: 'throughput',
        name: 'MQTT-SN lightweight ciphers',
        mechanisms: ['none', 'aes-128-cbc', 'present-80-cbc'],
        data_sizes: [1, 64, 1280],
        repetitions: 10,
        window_ms: 1000,
        crypto_library: 'pycryptodome',
        device_ids: ['5d1c0d9e-0000-4000-8000-000000000001'],
        ...NO_MATRIX,
      });
      expect(db.runs).toEqual([
        expect.objectContaining({
          kind: 'throughput',
          spec: {
            mechanisms: ['none', 'aes-128-cbc', 'present-80-cbc'],
            data_sizes: [1, 64, 1280],
            repetitions: 10,
            window_ms: 1000,
          },
        }),
      ]);
      expect(router.state.location.pathname).toBe(`/runs/${db.runs[0]?.id}`);
    });
  });
});
