import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db, experimentFixture } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { captureCreateBody, renderNewExperimentForm as renderForm } from '@/testing/new-experiment-form';
import { renderApp, screen, within } from '@/testing/test-utils';

// A throughput experiment's receiver (target_url): where its packets go, e.g. the MQTT-SN
// paper's gateway Pi (docs/experiment-design.md). The rest of the form: experiment-new.test.tsx.

const RECEIVER = 'Receiver (udp://host:port)';
const THROUGHPUT = 'Throughput (secured packets per window)';
const FORM_ERROR =
  'target_url must be udp://host:port (a name, an IPv4 address or a bracketed IPv6 address, e.g. udp://[2001:db8::5]:9999), port 1..65535, no path, query or user.';

const renderThroughputForm = async () => {
  const view = await renderForm();
  await view.user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), THROUGHPUT);
  return view;
};

describe('New experiment page: throughput receiver', () => {
  it('should offer the receiver for throughput designs only', async () => {
    const { user } = await renderForm();
    const kind = screen.getByRole('combobox', { name: 'Kind' });

    expect(screen.queryByRole('textbox', { name: RECEIVER })).not.toBeInTheDocument();
    await user.selectOptions(kind, 'Cipher benchmark');
    expect(screen.queryByRole('textbox', { name: RECEIVER })).not.toBeInTheDocument();
    await user.selectOptions(kind, THROUGHPUT);
    const receiver = screen.getByRole('textbox', { name: RECEIVER });
    expect(receiver).toHaveValue('');
    expect(receiver).toHaveAccessibleDescription(expect.stringContaining('Empty: a sink on the device itself (127.0.0.1).'));
  });

  it('should send the receiver when filled, and no target_url when empty', async () => {
    const sent = captureCreateBody();
    const { user } = await renderThroughputForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Loopback');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('heading', { name: 'Loopback' })).toBeInTheDocument();
    expect(sent.body).not.toHaveProperty('target_url');
    expect(db.experiments[0]).toMatchObject({ kind: 'throughput', target_url: '' });
  });

  it('should send the typed receiver, trimmed', async () => {
    const sent = captureCreateBody();
    const { user } = await renderThroughputForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Gateway Pi');
    await user.type(screen.getByRole('textbox', { name: RECEIVER }), ' udp://192.168.4.1:9999 ');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'Gateway Pi' })).toBeInTheDocument();
    expect(sent.body).toMatchObject({ kind: 'throughput', target_url: 'udp://192.168.4.1:9999' });
    expect(db.experiments[0]).toMatchObject({ target_url: 'udp://192.168.4.1:9999' });
  });

  it('should show the server’s receiver error at the receiver field', async () => {
    server.use(
      http.post('/api/experiments/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { target_url: [FORM_ERROR] },
        }),
      ),
    );
    const { user } = await renderThroughputForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'No port');
    const receiver = screen.getByRole('textbox', { name: RECEIVER });
    await user.type(receiver, 'udp://gateway-pi');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Some fields are invalid');
    expect(receiver).toHaveAttribute('aria-invalid', 'true');
    expect(receiver).toHaveAccessibleDescription(expect.stringContaining(FORM_ERROR));
    expect(db.experiments).toHaveLength(0);
  });
});

describe('Experiment page: throughput receiver', () => {
  it('should show the receiver the design names', async () => {
    db.experiments.push(
      experimentFixture({
        name: 'Gateway Pi',
        kind: 'throughput',
        mechanisms: ['none'],
        data_sizes: [16],
        target_url: 'udp://192.168.4.1:9999',
      }),
    );
    renderApp(`/experiments/${db.experiments[0]!.id}`);

    const parameters = await screen.findByRole('region', { name: 'Parameters' });
    expect(within(parameters).getByText('Receiver')).toBeInTheDocument();
    expect(within(parameters).getByText('udp://192.168.4.1:9999')).toBeInTheDocument();
  });
});
