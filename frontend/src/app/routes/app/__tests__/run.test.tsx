import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { GROUP_COLOURS } from '@/components/charts/figures';
import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import { db, deviceFixture } from '@/testing/mocks/db';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { BenchSummaryRow, Run } from '@/types/api';

// The seam: Plotly cannot draw in jsdom, so the one module that imports it is replaced
// by a stub that records what it was given.
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const RUN_ID = 'r0000000-0000-4000-8000-000000000001';
const [pi1, pi2] = [deviceFixture(), deviceFixture({ id: '5d1c0d9e-0000-4000-8000-000000000002', name: 'pi-lab-2' })];

const runningRun: Run = {
  id: RUN_ID,
  experiment: { id: 'e0000000-0000-4000-8000-000000000001', name: 'QoS 1 baseline' },
  kind: 'messaging',
  status: 'running',
  error: '',
  spec: { protocol: 'mqtt', qos: 1, security: 'none', payload_size: 66, message_count: 100 },
  created_at: '2025-01-02T10:00:00Z',
  started_at: '2025-01-02T10:00:01Z',
  finished_at: null,
  devices: [
    { device_id: pi1.id, name: pi1.name, status: 'running', sent: 40, received: 38, total: 100, records_ingested: 0, error: '', facts: {} },
    { device_id: pi2.id, name: pi2.name, status: 'running', sent: 10, received: 10, total: 100, records_ingested: 0, error: '', facts: {} },
  ],
  summary: [],
  bench_summary: [],
};

const completedRun: Run = {
  ...runningRun,
  status: 'completed',
  finished_at: '2025-01-02T10:01:00Z',
  devices: runningRun.devices.map((d) => ({ ...d, status: 'completed', sent: 100, received: 100, records_ingested: 100 })),
  summary: [
    { device_id: pi1.id, device_name: pi1.name, n: 100, lost: 0, mean_ms: 12.3456, median_ms: 12, p95_ms: 20.5, p99_ms: 25, min_ms: 8.1, max_ms: 30, std_ms: 3.21, secure_mean_us: null, unsecure_mean_us: null },
    { device_id: pi2.id, device_name: pi2.name, n: 1, lost: 99, mean_ms: 15, median_ms: 15, p95_ms: 15, p99_ms: 15, min_ms: 15, max_ms: 15, std_ms: null, secure_mean_us: null, unsecure_mean_us: null },
    { device_id: null, device_name: 'All devices', n: 101, lost: 99, mean_ms: 12.37, median_ms: 12, p95_ms: 20.5, p99_ms: 25, min_ms: 8.1, max_ms: 30, std_ms: 3.2, secure_mean_us: null, unsecure_mean_us: null },
  ],
};

const rtt = {
  devices: [
    { device_id: pi1.id, name: pi1.name, rtt_ms: [8.1, 12, 30] },
    { device_id: pi2.id, name: pi2.name, rtt_ms: [15] },
  ],
};

const benchRow = (
  mechanism: string,
  operation: string,
  dataBytes: number,
  meanUs: number,
  overrides: Partial<BenchSummaryRow> = {},
): BenchSummaryRow => ({
  device_id: pi1.id,
  device_name: pi1.name,
  mechanism,
  operation,
  data_bytes: dataBytes,
  n: 100,
  mean_us: meanUs,
  var_us2: 0.25,
  std_us: 0.5,
  cpu_mean_us: meanUs * 0.9,
  throughput_mb_s: dataBytes / meanUs,
  peak_rss_kb: 21_504,
  ...overrides,
});

const runningBench: Run = {
  ...runningRun,
  experiment: { id: 'e0000000-0000-4000-8000-000000000002', name: 'OpenSSL on Pi' },
  kind: 'cipher_bench',
  spec: { mechanisms: ['aes-128-cbc', 'rsa-2048-pkcs1v15'], data_sizes: [16, 8192], repetitions: 100 },
  devices: [
    { device_id: pi1.id, name: pi1.name, status: 'running', sent: 120, received: 120, total: 800, records_ingested: 0, error: '', facts: {} },
  ],
};

const completedBench: Run = {
  ...runningBench,
  status: 'completed',
  finished_at: '2025-01-02T10:01:00Z',
  devices: runningBench.devices.map((d) => ({ ...d, status: 'completed', sent: 800, received: 800, records_ingested: 800 })),
  // In the server's order (mechanism name, size, operation name): the page re-sorts them.
  bench_summary: [
    benchRow('aes-128-cbc', 'decrypt', 16, 1.6, { std_us: null, var_us2: null }),
    benchRow('aes-128-cbc', 'encrypt', 16, 1.5, { std_us: 0.1, var_us2: 0.01 }),
    benchRow('aes-128-cbc', 'decrypt', 8192, 20.5),
    benchRow('aes-128-cbc', 'encrypt', 8192, 20),
    benchRow('rsa-2048-pkcs1v15', 'sign', 16, 1500, { std_us: 12 }),
    benchRow('rsa-2048-pkcs1v15', 'verify', 16, 40, { std_us: 2 }),
    benchRow('rsa-2048-pkcs1v15', 'sign', 8192, 1510, { std_us: 13 }),
    benchRow('rsa-2048-pkcs1v15', 'verify', 8192, 45, { std_us: 3 }),
  ],
};

/** Props of the most recent figure of this trace type handed to the (mocked) Plotly seam. */
const lastFigure = (type: string) =>
  plotlyFigure.mock.calls.map(([props]) => props as PlotlyFigureProps).filter((f) => f.data[0]?.type === type).at(-1);

describe('Run page', () => {
  it('should show live progress, then the charts and summary once completed', async () => {
    // First poll: running. Every later poll: completed.
    let polls = 0;
    server.use(
      http.get('/api/runs/:id/', () => HttpResponse.json(polls++ === 0 ? runningRun : completedRun)),
      http.get('/api/runs/:id/rtt/', () => HttpResponse.json(rtt)),
    );
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('heading', { name: 'Run: QoS 1 baseline' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Status: running');
    const bar = screen.getByRole('progressbar', { name: 'pi-lab-1 progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '40');
    expect(bar).toHaveAttribute('aria-valuemax', '100');
    expect(screen.getByText('38/100 received')).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'pi-lab-2 progress' })).toHaveAttribute('aria-valuenow', '10');
    expect(screen.queryByRole('table', { name: 'Summary' })).not.toBeInTheDocument();

    // The 1 s refetch brings the completed run.
    const table = await screen.findByRole('table', { name: 'Summary' }, { timeout: 3000 });
    expect(screen.getByRole('status')).toHaveTextContent('Status: completed');
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();

    const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toEqual([
      'Device', 'n', 'Lost', 'Mean (ms)', 'Median (ms)', 'p95 (ms)', 'p99 (ms)', 'Min (ms)', 'Max (ms)', 'Std dev (ms)',
    ]);
    const pi1Row = within(table).getByRole('row', { name: /pi-lab-1/ });
    expect(within(pi1Row).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '100', '0', '12.346', '12.000', '20.500', '25.000', '8.100', '30.000', '3.210',
    ]);
    const pi2Row = within(table).getByRole('row', { name: /pi-lab-2/ });
    expect(within(pi2Row).getAllByRole('cell').at(-1)).toHaveTextContent('—');
    expect(within(table).getByRole('rowheader', { name: 'All devices' })).toBeInTheDocument();

    // Both chart panels received the per-device samples.
    expect(screen.getByRole('region', { name: 'Round-trip time histogram' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Round-trip time boxplot' })).toBeInTheDocument();
    await vi.waitFor(() => expect(plotlyFigure).toHaveBeenCalled());
    const figures = plotlyFigure.mock.calls.map(([props]) => props as PlotlyFigureProps);
    const histogram = figures.find((f) => f.data[0]?.type === 'histogram');
    const box = figures.find((f) => f.data[0]?.type === 'box');
    expect(histogram?.data).toEqual([
      expect.objectContaining({ name: 'pi-lab-1', x: [8.1, 12, 30] }),
      expect.objectContaining({ name: 'pi-lab-2', x: [15] }),
    ]);
    expect(histogram?.layout.barmode).toBe('overlay');
    expect(box?.data).toEqual([
      expect.objectContaining({ name: 'pi-lab-1', y: [8.1, 12, 30] }),
      expect.objectContaining({ name: 'pi-lab-2', y: [15] }),
    ]);
  });

  it('should show the error of a failed run', async () => {
    db.runs.push({ ...runningRun, status: 'failed', error: 'Device pi-lab-2 did not respond.' });
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('alert')).toHaveTextContent('Device pi-lab-2 did not respond.');
    expect(screen.getByRole('status')).toHaveTextContent('Status: failed');
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Summary' })).not.toBeInTheDocument();
  });

  it('should add the securing and unsecuring times when the payload was secured', async () => {
    db.runs.push({
      ...completedRun,
      spec: { ...completedRun.spec, security: 'aes-128-cbc' },
      summary: completedRun.summary.map((row) => ({ ...row, secure_mean_us: 12.34567, unsecure_mean_us: 8 })),
    });
    renderApp(`/runs/${RUN_ID}`);

    const table = await screen.findByRole('table', { name: 'Summary' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent).slice(-3)).toEqual([
      'Std dev (ms)', 'Secure (µs)', 'Unsecure (µs)',
    ]);
    const pi1Row = within(table).getByRole('row', { name: /pi-lab-1/ });
    expect(within(pi1Row).getAllByRole('cell').map((c) => c.textContent).slice(-2)).toEqual(['12.346', '8.000']);
    expect(screen.getByRole('region', { name: 'Round-trip time histogram' })).toBeInTheDocument();
  });

  it('should show cipher-benchmark progress in repetitions, then its table and charts', async () => {
    let polls = 0;
    server.use(http.get('/api/runs/:id/', () => HttpResponse.json(polls++ === 0 ? runningBench : completedBench)));
    const { user } = renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('heading', { name: 'Run: OpenSSL on Pi' })).toBeInTheDocument();
    const bar = screen.getByRole('progressbar', { name: 'pi-lab-1 progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '120');
    expect(bar).toHaveAttribute('aria-valuemax', '800');
    expect(bar).toHaveAttribute('aria-valuetext', '120 of 800 repetitions done');
    expect(screen.getByText('120/800 repetitions done')).toBeInTheDocument();

    // The 1 s refetch brings the completed run.
    const table = await screen.findByRole('table', { name: 'Cipher benchmark' }, { timeout: 3000 });
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Summary' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Round-trip time histogram' })).not.toBeInTheDocument();

    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Device', 'Mechanism', 'Operation', 'Data size', 'n', 'Mean (µs)', 'Std dev (µs)', 'Variance (µs²)',
      'CPU (µs)', 'Throughput (MB/s)', 'Peak RSS (KB)',
    ]);
    // Mechanisms by label once the catalogue is in; operations as encrypt before decrypt.
    await within(table).findAllByRole('cell', { name: 'RSA-2048 PKCS#1 v1.5 (SHA-256)' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(0, 3).map((c) => c.textContent).join(' '))).toEqual([
      'AES-128-CBC encrypt 16 B',
      'AES-128-CBC decrypt 16 B',
      'AES-128-CBC encrypt 8 KiB',
      'AES-128-CBC decrypt 8 KiB',
      'RSA-2048 PKCS#1 v1.5 (SHA-256) sign 16 B',
      'RSA-2048 PKCS#1 v1.5 (SHA-256) verify 16 B',
      'RSA-2048 PKCS#1 v1.5 (SHA-256) sign 8 KiB',
      'RSA-2048 PKCS#1 v1.5 (SHA-256) verify 8 KiB',
    ]);
    expect(within(rows[0]!).getByRole('rowheader', { name: 'pi-lab-1' })).toBeInTheDocument();
    expect(within(rows[0]!).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      'AES-128-CBC', 'encrypt', '16 B', '100', '1.500', '0.100', '0.010', '1.350', '10.667', '21504',
    ]);
    expect(within(rows[1]!).getAllByRole('cell').map((c) => c.textContent).slice(5, 7)).toEqual(['—', '—']);

    // Mean time per operation: one data size at a time, mechanisms on the axis, ± std dev.
    const meanPanel = screen.getByRole('region', { name: 'Mean time per operation' });
    const sizeSelect = within(meanPanel).getByRole('combobox', { name: 'Data size' });
    expect(sizeSelect).toHaveDisplayValue('16 B');
    expect(within(sizeSelect).getAllByRole('option').map((o) => o.textContent)).toEqual(['16 B', '8 KiB']);
    const categories = ['AES-128-CBC', 'RSA-2048 PKCS#1 v1.5 (SHA-256)'];
    await vi.waitFor(() =>
      expect(lastFigure('bar')?.data).toEqual([
        expect.objectContaining({ name: 'encrypt / sign', x: categories, y: [1.5, 1500], error_y: { type: 'data', array: [0.1, 12], visible: true } }),
        expect.objectContaining({ name: 'decrypt / verify', x: categories, y: [1.6, 40], error_y: { type: 'data', array: [null, 2], visible: true } }),
      ]),
    );
    // Logarithmic at first: signatures take orders of magnitude longer than ciphers.
    expect(lastFigure('bar')?.layout.yaxis).toMatchObject({ type: 'log' });

    await user.selectOptions(sizeSelect, '8 KiB');
    await user.click(within(meanPanel).getByRole('checkbox', { name: 'Log scale' }));
    await vi.waitFor(() => {
      expect(lastFigure('bar')?.data.map((trace) => (trace as { y: unknown }).y)).toEqual([[20, 1510], [20.5, 45]]);
      expect(lastFigure('bar')?.layout.yaxis).toMatchObject({ type: 'linear' });
    });

    // Throughput: one line per mechanism and operation across the data sizes.
    expect(screen.getByRole('region', { name: 'Throughput' })).toBeInTheDocument();
    await vi.waitFor(() =>
      expect(lastFigure('scatter')?.data).toEqual([
        expect.objectContaining({ name: 'AES-128-CBC encrypt', x: ['16 B', '8 KiB'], y: [16 / 1.5, 8192 / 20], line: { color: GROUP_COLOURS[0], dash: 'solid' } }),
        expect.objectContaining({ name: 'AES-128-CBC decrypt', y: [16 / 1.6, 8192 / 20.5], line: { color: GROUP_COLOURS[0], dash: 'dot' } }),
        expect.objectContaining({ name: 'RSA-2048 PKCS#1 v1.5 (SHA-256) sign', y: [16 / 1500, 8192 / 1510] }),
        expect.objectContaining({ name: 'RSA-2048 PKCS#1 v1.5 (SHA-256) verify', y: [16 / 40, 8192 / 45] }),
      ]),
    );
  });
});
