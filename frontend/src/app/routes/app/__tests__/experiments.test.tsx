import { describe, expect, it, vi } from 'vitest';

import { db, experimentFixture, runBriefFixture } from '@/testing/mocks/db';
import { renderApp, screen, within } from '@/testing/test-utils';

const experiment = experimentFixture({
  id: 'e0000000-0000-4000-8000-000000000001',
  name: 'QoS 1 baseline',
  device_ids: ['5d1c0d9e-0000-4000-8000-000000000001'],
  runs: [runBriefFixture({ id: 'r0000000-0000-4000-8000-000000000001', status: 'done', created_at: '2025-01-02T10:05:00Z' })],
});

const benchmark = experimentFixture({
  id: 'e0000000-0000-4000-8000-000000000002',
  name: 'OpenSSL on Pi',
  kind: 'cipher_bench',
  mechanisms: ['aes-128-cbc', 'rsa-2048-pkcs1v15', 'present-80-cbc'],
  data_sizes: [16, 8192, 1024 ** 2],
  repetitions: 250,
});

const throughput = experimentFixture({
  id: 'e0000000-0000-4000-8000-000000000003',
  name: 'MQTT-SN lightweight ciphers',
  kind: 'throughput',
  mechanisms: ['none', 'aes-128-cbc', 'present-80-cbc'],
  data_sizes: [1, 1280],
  repetitions: 10,
  window_ms: 2000,
});

/** The experiment page's parameters, term → definition. */
const parameters = () => {
  const region = screen.getByRole('region', { name: 'Parameters' });
  const terms = within(region).getAllByRole('term').map((term) => term.textContent);
  const definitions = within(region).getAllByRole('definition').map((definition) => definition.textContent);
  return Object.fromEntries(terms.map((term, i) => [term, definitions[i]]));
};

describe('Experiments pages', () => {
  it('should list experiments with links to them and show the navigation', async () => {
    db.experiments.push(experiment);
    renderApp('/experiments');

    expect(await screen.findByRole('heading', { name: 'Experiments' })).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Experiments' })).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: 'Devices' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'New experiment' })).toHaveAttribute('href', '/experiments/new');
    expect(await screen.findByRole('link', { name: 'QoS 1 baseline' })).toHaveAttribute(
      'href',
      `/experiments/${experiment.id}`,
    );
  });

  it('should show an experiment and start a run from it', async () => {
    db.experiments.push(experiment);
    const { user, router } = renderApp(`/experiments/${experiment.id}`);

    expect(await screen.findByRole('heading', { name: 'QoS 1 baseline' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /^Run of/ })).toHaveAttribute(
      'href',
      `/runs/${experiment.runs[0]?.id}`,
    );
    expect(await screen.findByText('pi-lab-1')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Start run' }));

    expect(await screen.findByRole('status')).toHaveTextContent('Status: queued');
    const run = db.runs.at(-1);
    expect(router.state.location.pathname).toBe(`/runs/${run?.id}`);
  });

  it('should show the kind of each experiment and no messaging parameters for a benchmark', async () => {
    db.experiments.push(experiment, benchmark);
    renderApp('/experiments');

    const table = await screen.findByRole('table', { name: 'All experiments' });
    const messagingRow = within(table).getByRole('row', { name: /QoS 1 baseline/ });
    expect(await within(messagingRow).findByRole('cell', { name: 'Messaging round trip' })).toBeInTheDocument();
    expect(within(messagingRow).getByRole('cell', { name: 'MQTT' })).toBeInTheDocument();
    const benchRow = within(table).getByRole('row', { name: /OpenSSL on Pi/ });
    expect(within(benchRow).getAllByRole('cell').map((cell) => cell.textContent)).toEqual([
      'Cipher benchmark', '—', '—', '—', '—', '1', 'none', expect.any(String), 'Clone YAML',
    ]);
  });

  it('should show the kind of a throughput experiment in the list', async () => {
    db.experiments.push(throughput);
    renderApp('/experiments');

    const table = await screen.findByRole('table', { name: 'All experiments' });
    const row = within(table).getByRole('row', { name: /MQTT-SN lightweight ciphers/ });
    expect(await within(row).findByRole('cell', { name: 'Throughput (secured packets per window)' })).toBeInTheDocument();
    expect(within(row).getAllByRole('cell').map((cell) => cell.textContent).slice(1, 5)).toEqual(['—', '—', '—', '—']);
  });

  it("should show a throughput experiment's mechanisms, payload sizes, repetitions and window", async () => {
    db.experiments.push(throughput);
    renderApp(`/experiments/${throughput.id}`);

    expect(await screen.findByRole('heading', { name: 'MQTT-SN lightweight ciphers' })).toBeInTheDocument();
    await vi.waitFor(() =>
      expect(parameters()).toMatchObject({
        Kind: 'Throughput (secured packets per window)',
        Mechanisms: 'None, AES-128-CBC, PRESENT-80-CBC',
        'Payload sizes': '1 B, 1280 B',
        Repetitions: '10',
        'Window (ms)': '2000',
      }),
    );
    expect(parameters()).not.toHaveProperty('Payload security');
    expect(parameters()).not.toHaveProperty('Data sizes');
    expect(parameters()).not.toHaveProperty('Interval distribution');
  });

  it('should show the payload security of a messaging experiment by its label', async () => {
    db.experiments.push({ ...experiment, security: 'aes-256-gcm' });
    renderApp(`/experiments/${experiment.id}`);

    expect(await screen.findByRole('heading', { name: 'QoS 1 baseline' })).toBeInTheDocument();
    await vi.waitFor(() =>
      expect(parameters()).toMatchObject({
        Kind: 'Messaging round trip',
        Protocol: 'MQTT',
        QoS: '1',
        'Payload security': 'AES-256-GCM',
        'Payload size (bytes)': '66',
        // The defaults.
        'MQTT version': 'MQTT 3.1.1',
        Transport: 'MQTT over TCP',
        'Interval distribution': 'Fixed',
      }),
    );
  });

  it('should show the MQTT version and interval distribution of a messaging experiment', async () => {
    db.experiments.push({ ...experiment, mqtt_version: '5', interval_ms: 500, interval_distribution: 'uniform' });
    renderApp(`/experiments/${experiment.id}`);

    expect(await screen.findByRole('heading', { name: 'QoS 1 baseline' })).toBeInTheDocument();
    expect(parameters()).toMatchObject({
      Protocol: 'MQTT',
      'MQTT version': 'MQTT 5',
      'Interval between messages (ms)': '500',
      'Interval distribution': 'Uniform random (0 to 2 x interval)',
    });
  });

  it('should show the transport of a messaging experiment', async () => {
    db.experiments.push({ ...experiment, transport: 'tls1.3' });
    renderApp(`/experiments/${experiment.id}`);

    expect(await screen.findByRole('heading', { name: 'QoS 1 baseline' })).toBeInTheDocument();
    expect(parameters()).toMatchObject({ 'MQTT version': 'MQTT 3.1.1', Transport: 'MQTT over TLS 1.3' });
  });

  it("should show a CoAP experiment's message type, method and UDP, and no MQTT version or QoS", async () => {
    db.experiments.push({ ...experiment, protocol: 'coap', coap_type: 'con', coap_method: 'get', transport: 'tcp' });
    renderApp(`/experiments/${experiment.id}`);

    expect(await screen.findByRole('heading', { name: 'QoS 1 baseline' })).toBeInTheDocument();
    await vi.waitFor(() =>
      expect(parameters()).toMatchObject({
        Protocol: 'CoAP',
        'CoAP message type': 'Confirmable (CON)',
        'CoAP method': 'GET',
        Transport: 'UDP',
      }),
    );
    expect(parameters()).not.toHaveProperty('MQTT version');
    expect(parameters()).not.toHaveProperty('QoS');
  });

  it("should show a cipher benchmark's mechanisms, data sizes and repetitions", async () => {
    db.experiments.push(benchmark);
    renderApp(`/experiments/${benchmark.id}`);

    expect(await screen.findByRole('heading', { name: 'OpenSSL on Pi' })).toBeInTheDocument();
    await vi.waitFor(() =>
      expect(parameters()).toMatchObject({
        Kind: 'Cipher benchmark',
        Mechanisms: 'AES-128-CBC, RSA-2048 PKCS#1 v1.5 (SHA-256), PRESENT-80-CBC',
        'Data sizes': '16 B, 8 KiB, 1 MiB',
        Repetitions: '250',
      }),
    );
    expect(parameters()).not.toHaveProperty('Protocol');
    expect(parameters()).not.toHaveProperty('MQTT version');
    expect(parameters()).not.toHaveProperty('Transport');
    expect(parameters()).not.toHaveProperty('Payload security');
    expect(parameters()).not.toHaveProperty('Interval distribution');
  });

  it('should show the not-found page for an experiment that is not there', async () => {
    renderApp('/experiments/e0000000-0000-4000-8000-00000000dead');

    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
  });
});
