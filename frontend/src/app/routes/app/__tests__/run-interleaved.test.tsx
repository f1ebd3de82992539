import { describe, expect, it, vi } from 'vitest';

import { colourOf } from '@/components/charts/colours';
import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import {
  db,
  deviceFixture,
  roundTripStatisticsFixture,
  runDistributionFixture,
  runFixture,
  runStatisticsFixture,
} from '@/testing/mocks/db';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { DeviceDistribution, MechanismStatistics, Run, RunSizes, RunSummaryRow, SizeBreakdown } from '@/types/api';

// Plotly cannot draw in jsdom: record the figures handed to it.
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const RUN_ID = 'r0000000-0000-4000-8000-00000000ab01';
const ROTATION = ['none', 'null', 'aes-128-cbc'] as const;
const pi1 = deviceFixture();

/** The most recent round-trip figure of this trace type. */
const lastFigure = (type: string) =>
  plotlyFigure.mock.calls
    .map(([props]) => props as PlotlyFigureProps)
    .filter((f) => f.data[0]?.type === type && f.layout.xaxis?.title?.text !== 'Run' && f.layout.xaxis?.title?.text !== 'Mechanism')
    .filter((f) => f.layout.yaxis?.title?.text !== 'Bytes per message')
    .at(-1);

const MEANS = { none: 1.2, null: 1.21, 'aes-128-cbc': 1.25 } as const;

const mechanismStatistics = (mechanism: (typeof ROTATION)[number]): MechanismStatistics => {
  const row = roundTripStatisticsFixture({ records: 10, n: 10, mean_ms: MEANS[mechanism], ci_low_ms: 1, ci_high_ms: 2 });
  return {
    mechanism,
    devices: [row],
    all_devices: { ...row, device_id: null, device_name: 'All devices' },
    mean_of_device_means_ms: MEANS[mechanism],
    overhead:
      mechanism === 'none'
        ? null
        : { baseline: 'none', pairs: 10, overhead_ms: MEANS[mechanism] - MEANS.none, ci_low_ms: 0.001, ci_high_ms: 0.1 },
  };
};

const summaryRow = (mechanism: string, secure: number): RunSummaryRow => ({
  device_id: null,
  device_name: 'All devices',
  mechanism,
  n: 10,
  lost: 0,
  mean_ms: 1.2,
  median_ms: 1.2,
  p95_ms: 1.3,
  p99_ms: 1.3,
  min_ms: 1.1,
  max_ms: 1.4,
  std_ms: 0.01,
  secure_mean_us: secure,
  unsecure_mean_us: secure,
  floor_secure_mean_us: 1,
  floor_unsecure_mean_us: 1,
  net_secure_mean_us: secure - 1,
  net_unsecure_mean_us: secure - 1,
  secure_median_us: secure,
  unsecure_median_us: secure,
  net_secure_median_us: secure - 1,
  net_unsecure_median_us: secure - 1,
});

const interleavedRun: Run = runFixture({
  id: RUN_ID,
  experiment: { id: 'e0000000-0000-4000-8000-00000000ab01', name: 'Interleaved' },
  kind: 'messaging',
  status: 'done',
  spec: { protocol: 'mqtt', qos: 1, security: 'none', interleave_mechanisms: [...ROTATION], payload_size: 66, message_count: 30 },
  devices: [
    { device_id: pi1.id, name: pi1.name, status: 'done', sent: 30, received: 30, total: 30, records_ingested: 30, error: '', facts: {}, network: null, clock: null, resources: null },
  ],
  summary: [summaryRow('aes-128-cbc', 20), summaryRow('none', 0.5), summaryRow('null', 2)],
});

const BODY: Record<string, [number, number, number]> = { none: [0, 0, 67], null: [16, 0, 83], 'aes-128-cbc': [16, 14, 97] };

const breakdown = (mechanism: string, agrees: boolean): SizeBreakdown => {
  const [iv, padding, body] = BODY[mechanism] ?? [0, 0, 0];
  const components: SizeBreakdown['components'] = [
    { key: 'link', name: 'Ethernet header', bytes: 14, basis: 'assumed' },
    { key: 'ip', name: 'IPv4 header', bytes: 20, basis: 'assumed' },
    { key: 'tcp', name: 'TCP header', bytes: 32, basis: 'assumed' },
    { key: 'mqtt_header', name: 'MQTT header', bytes: 7, basis: 'spec' },
    { key: 'topic', name: 'Topic', bytes: 90, basis: 'spec' },
    { key: 'index', name: 'Interleave index', bytes: 1, basis: 'spec' },
    { key: 'iv', name: 'IV / nonce', bytes: iv, basis: 'spec' },
    { key: 'payload', name: 'Payload', bytes: 66, basis: 'spec' },
    { key: 'padding', name: 'Padding', bytes: padding, basis: 'spec' },
  ];
  const socket = 7 + 90 + body;
  return {
    run_id: RUN_ID,
    mechanism,
    protocol: 'mqtt',
    mqtt_version: '3.1.1',
    qos: 1,
    transport: 'tcp',
    security: mechanism,
    srup_signature: null,
    payload_size: 66,
    messages: 10,
    wire_bytes_median: agrees ? socket : socket + 2,
    wire_bytes_min: socket,
    wire_bytes_max: socket,
    plaintext_bytes: socket,
    residual_bytes: agrees ? 0 : 2,
    model_agrees: agrees,
    warning: agrees ? null : 'The measured bytes are 2 more than the model.',
    segments: 1,
    frame_bytes: components.reduce((sum, c) => sum + c.bytes, 0),
    components,
    assumptions: [],
    reference_frames: [],
  };
};

const arrange = ({ nullAgrees = true } = {}) => {
  db.runs.push(interleavedRun);
  db.statistics[RUN_ID] = runStatisticsFixture(RUN_ID, {
    devices: [roundTripStatisticsFixture()],
    mechanisms: ROTATION.map(mechanismStatistics),
  });
  const base = runDistributionFixture(RUN_ID);
  const first = base.devices[0] as DeviceDistribution;
  db.distributions[RUN_ID] = {
    ...base,
    devices: ROTATION.map((mechanism) => ({ ...first, device_id: pi1.id, device_name: pi1.name, mechanism })),
  };
  const parts = ROTATION.map((m) => breakdown(m, m !== 'null' || nullAgrees));
  db.sizes[RUN_ID] = { ...(parts[0] as SizeBreakdown), mechanisms: parts } satisfies RunSizes;
  db.methods[RUN_ID] = { run_id: RUN_ID, text: 'The run was interleaved.' };
};

describe('Run page of an interleaved run', () => {
  it('should show the statistics per mechanism with the paired overhead against none', async () => {
    arrange();
    renderApp(`/runs/${RUN_ID}`);

    const table = await screen.findByRole('table', { name: 'Per mechanism (interleaved run)' });
    const rows = within(table).getAllByRole('rowheader').map((h) => h.textContent?.trim());
    expect(rows).toEqual([...ROTATION]);
    const aes = within(table).getByRole('row', { name: /aes-128-cbc/ });
    expect(within(aes).getAllByRole('cell')[3]).toHaveTextContent('1.250');

    const overheads = screen.getByRole('table', { name: 'Overhead against none, paired by rotation cycle' });
    expect(within(overheads).getAllByRole('rowheader').map((h) => h.textContent?.trim())).toEqual(['null', 'aes-128-cbc']);
    const aesOverhead = within(overheads).getByRole('row', { name: /aes-128-cbc/ });
    expect(within(aesOverhead).getAllByRole('cell').map((c) => c.textContent)).toEqual(['10', '0.050', '0.001 – 0.100']);
    // The mixed summary is still there, named as such.
    expect(screen.getByRole('table', { name: 'Summary (every mechanism together)' })).toBeInTheDocument();
  });

  it('should draw one series per mechanism in the mechanisms colours', async () => {
    plotlyFigure.mockClear();
    arrange();
    renderApp(`/runs/${RUN_ID}`);

    await screen.findByRole('region', { name: 'Round-trip time boxplot' });
    await vi.waitFor(() => {
      const bars = lastFigure('bar')?.data ?? [];
      const boxes = lastFigure('box')?.data.slice(0, 3) ?? [];
      ROTATION.forEach((m, i) => {
        expect(bars[i]).toMatchObject({ name: m, marker: { color: colourOf(m) } });
        expect(boxes[i]).toMatchObject({ name: m, mean: [MEANS[m]], marker: { color: colourOf(m) } });
      });
      expect(bars).toHaveLength(3);
    });
  });

  it('should show the securing times per mechanism', async () => {
    arrange();
    renderApp(`/runs/${RUN_ID}`);

    const table = await screen.findByRole('table', { name: 'Securing times' });
    expect(within(table).getAllByRole('columnheader')[0]).toHaveTextContent('Mechanism');
    const aes = within(table).getByRole('row', { name: /aes-128-cbc/ });
    expect(within(aes).getAllByRole('cell').map((c) => c.textContent).slice(0, 3)).toEqual(['aes-128-cbc', '10', '20.000']);
  });

  it('should show one size bar per mechanism with its index byte and each mechanism judged on its own', async () => {
    plotlyFigure.mockClear();
    arrange({ nullAgrees: false });
    const { user } = renderApp(`/runs/${RUN_ID}`);

    const panel = await screen.findByRole('region', { name: 'Message size breakdown' });
    // Only the mechanism whose own messages the model misses is flagged.
    const alerts = await within(panel).findAllByText(/The size model does not match the measured bytes/);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.textContent).toMatch(/^null\b/i);
    await vi.waitFor(() => {
      const stacked = plotlyFigure.mock.calls
        .map(([props]) => props as PlotlyFigureProps)
        .filter((f) => f.layout.yaxis?.title?.text === 'Bytes per message')
        .at(-1);
      expect(stacked?.data).toContainEqual(
        expect.objectContaining({ name: 'Interleave index', y: [1, 1, 1] }),
      );
    });
    const table = within(panel).getByRole('table', { name: 'Bytes of one message' });
    expect(within(table).getByRole('row', { name: /Interleave index/ })).toHaveTextContent('1');
    expect(within(table).queryByRole('row', { name: /Padding/ })).not.toBeInTheDocument();

    await user.selectOptions(within(panel).getByRole('combobox', { name: 'Mechanism' }), 'aes-128-cbc');
    expect(within(within(panel).getByRole('table', { name: 'Bytes of one message' })).getByRole('row', { name: /Padding/ })).toHaveTextContent('14');
  });
});
