import { QueryClientProvider } from '@tanstack/react-query';
import { http, HttpResponse } from 'msw';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';

import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import { server } from '@/testing/mocks/server';
import { createTestQueryClient, render, screen, within } from '@/testing/test-utils';
import type { RunSizes } from '@/types/api';

import { RunSizeBreakdown } from './size-breakdown';

// Plotly cannot draw in jsdom: record the figures handed to it.
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const RUN_ID = 'a1111111-0000-4000-8000-000000000001';
const LABELS = new Map([['aes-128-cbc', 'AES-128-CBC']]);

type Part = RunSizes['components'][number];

const component = (key: Part['key'], name: string, bytes: number, basis: Part['basis']): Part => ({
  key,
  name,
  bytes,
  basis,
});

const SIZES: RunSizes = {
  run_id: RUN_ID,
  mechanism: null,
  mechanisms: [],
  protocol: 'mqtt',
  mqtt_version: '3.1.1',
  qos: 1,
  transport: 'tcp',
  security: 'aes-128-cbc',
  srup_signature: null,
  payload_size: 66,
  messages: 3,
  wire_bytes_median: 194,
  wire_bytes_min: 194,
  wire_bytes_max: 194,
  plaintext_bytes: 193,
  residual_bytes: 1,
  model_agrees: false,
  warning: 'The measured 194 bytes are 1 more than the 193 bytes of the MQTT packet.',
  segments: 1,
  frame_bytes: 260,
  components: [
    component('link', 'Ethernet header', 14, 'assumed'),
    component('ip', 'IPv4 header', 20, 'assumed'),
    component('tcp', 'TCP header', 32, 'assumed'),
    component('tls', 'TLS record overhead', 0, 'measured'),
    component('mqtt_header', 'MQTT header', 7, 'spec'),
    component('topic', 'Topic', 90, 'spec'),
    component('iv', 'IV / nonce', 16, 'spec'),
    component('payload', 'Payload', 66, 'spec'),
    component('padding', 'Padding', 14, 'spec'),
    component('unexplained', 'Unexplained', 1, 'measured'),
  ],
  assumptions: ['Link: Ethernet II header, 14 bytes per segment; the 4-byte FCS is not counted.'],
  reference_frames: [],
};

const renderPanel = () => {
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={createTestQueryClient()}>{children}</QueryClientProvider>
  );
  return render(<RunSizeBreakdown runId={RUN_ID} mechanismLabels={LABELS} />, { wrapper });
};

describe('RunSizeBreakdown', () => {
  it('should draw one stacked bar of the parts, list them with their basis and flag a model mismatch', async () => {
    server.use(http.get('/api/runs/:id/sizes/', () => HttpResponse.json(SIZES)));
    renderPanel();

    expect(await screen.findByRole('cell', { name: '260' })).toBeInTheDocument();
    expect(screen.getByRole('rowheader', { name: 'Unexplained' })).toBeInTheDocument();
    expect(screen.queryByRole('rowheader', { name: 'TLS record overhead' })).not.toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('The size model does not match the measured bytes.');
    expect(screen.getByText(/194 bytes \(median of 3 delivered messages\)/)).toBeInTheDocument();

    await vi.waitFor(() => expect(plotlyFigure).toHaveBeenCalled());
    const figure = plotlyFigure.mock.calls.at(-1)?.[0] as PlotlyFigureProps;
    expect(figure.layout.barmode).toBe('stack');
    expect(figure.data).toHaveLength(9); // every part with bytes, TLS (0) left out
    expect(figure.data[0]).toMatchObject({
      name: 'Ethernet header',
      x: ['MQTT 3.1.1, QoS 1, AES-128-CBC, TCP'],
      y: [14],
    });
  });

  it('should say quietly that nothing was measured when the run delivered no message', async () => {
    server.use(
      http.get('/api/runs/:id/sizes/', () =>
        HttpResponse.json(
          { message: 'Run x has no delivered message.', code: 'run_has_no_delivered_messages', extra: {} },
          { status: 400 },
        ),
      ),
    );
    renderPanel();

    expect(await screen.findByText('Run x has no delivered message.')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('should show SRUP’s frame for the same payload beside a plain MQTT run, with the paper’s figure', async () => {
    const plain: RunSizes = {
      ...SIZES,
      security: 'none',
      payload_size: 1,
      wire_bytes_median: 14,
      frame_bytes: 80,
      warning: null,
      model_agrees: true,
      reference_frames: [
        {
          protocol: 'srup',
          stack: 'SRUP (signed MQTT) with RSA-2048 (PKCS#1 v1.5, SHA-256) signatures over MQTT 3.1.1 over TLS 1.2',
          topic: 'SRUP/0000000000000000',
          message_bytes: 351,
          socket_bytes: 380,
          frame_bytes: 446,
          paper_frame_bytes: 430,
          note: 'SRUP’s data message for this payload as the SRUP paper sent it.',
        },
      ],
    };
    server.use(http.get('/api/runs/:id/sizes/', () => HttpResponse.json(plain)));
    renderPanel();

    const table = await screen.findByRole('table', { name: /the SRUP paper’s comparison/ });
    const rows = within(table).getAllByRole('row');
    expect(rows[1]).toHaveTextContent(/This run \(measured\)\s*14\s*80/);
    expect(rows[2]).toHaveTextContent(/SRUP \(model\).*TLS 1\.2\s*380\s*446\s*430/);
  });

  it('should show no comparison for a run without reference frames', async () => {
    server.use(http.get('/api/runs/:id/sizes/', () => HttpResponse.json(SIZES)));
    renderPanel();

    await screen.findByRole('cell', { name: '260' });
    expect(screen.queryByRole('table', { name: /the SRUP paper’s comparison/ })).not.toBeInTheDocument();
  });
});
