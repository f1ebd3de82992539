import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { GROUP_COLOURS } from '@/components/charts/figures';
import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import {
  db,
  deviceFixture,
  parsedTraceFixture,
  powerTraceFixture,
  runDistributionFixture,
  runFixture,
  runStatisticsFixture,
} from '@/testing/mocks/db';
import { requestedPaths, server } from '@/testing/mocks/server';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { BenchOperation, BenchSummaryRow, Run } from '@/types/api';

// The seam: Plotly cannot draw in jsdom, so the one module that imports it is replaced
// by a stub that records what it was given.
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const RUN_ID = 'r0000000-0000-4000-8000-000000000001';
const [pi1, pi2] = [deviceFixture(), deviceFixture({ id: '5d1c0d9e-0000-4000-8000-000000000002', name: 'pi-lab-2' })];

const runningRun: Run = runFixture({
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
    { device_id: pi1.id, name: pi1.name, status: 'running', sent: 40, received: 38, total: 100, records_ingested: 0, error: '', facts: {}, network: null, clock: null, resources: null },
    { device_id: pi2.id, name: pi2.name, status: 'running', sent: 10, received: 10, total: 100, records_ingested: 0, error: '', facts: {}, network: null, clock: null, resources: null },
  ],
  summary: [],
  bench_summary: [],
});

// A run without payload security: no securing times, no floor.
const NO_SECURING = {
  secure_mean_us: null,
  unsecure_mean_us: null,
  floor_secure_mean_us: null,
  floor_unsecure_mean_us: null,
  net_secure_mean_us: null,
  net_unsecure_mean_us: null,
  secure_median_us: null,
  unsecure_median_us: null,
  net_secure_median_us: null,
  net_unsecure_median_us: null,
};

const completedRun: Run = runFixture({
  ...runningRun,
  status: 'done',
  finished_at: '2025-01-02T10:01:00Z',
  devices: runningRun.devices.map((d) => ({ ...d, status: 'done', sent: 100, received: 100, records_ingested: 100 })),
  summary: [
    { device_id: pi1.id, device_name: pi1.name, n: 100, lost: 0, mean_ms: 12.3456, median_ms: 12, p95_ms: 20.5, p99_ms: 25, min_ms: 8.1, max_ms: 30, std_ms: 3.21, mechanism: null, ...NO_SECURING },
    { device_id: pi2.id, device_name: pi2.name, n: 1, lost: 99, mean_ms: 15, median_ms: 15, p95_ms: 15, p99_ms: 15, min_ms: 15, max_ms: 15, std_ms: null, mechanism: null, ...NO_SECURING },
    { device_id: null, device_name: 'All devices', n: 101, lost: 99, mean_ms: 12.37, median_ms: 12, p95_ms: 20.5, p99_ms: 25, min_ms: 8.1, max_ms: 30, std_ms: 3.2, mechanism: null, ...NO_SECURING },
  ],
});

/** The results endpoints' answers for the completed messaging run. */
const arrangeResults = () => {
  db.statistics[RUN_ID] = runStatisticsFixture(RUN_ID);
  db.distributions[RUN_ID] = runDistributionFixture(RUN_ID);
  db.methods[RUN_ID] = { run_id: RUN_ID, text: 'Round-trip times were measured with IoTSecBench 0.1.0.' };
};

const benchRow = (
  mechanism: string,
  operation: BenchOperation,
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
  calls_per_repetition: null,
  // Throughput runs only.
  packets_per_s_mean: null,
  packets_per_s_std: null,
  net_mean_us: null,
  relative_cost: null,
  ...overrides,
});

const runningBench: Run = runFixture({
  ...runningRun,
  experiment: { id: 'e0000000-0000-4000-8000-000000000002', name: 'OpenSSL on Pi' },
  kind: 'cipher_bench',
  spec: { mechanisms: ['aes-128-cbc', 'rsa-2048-pkcs1v15'], data_sizes: [16, 8192], repetitions: 100 },
  devices: [
    { device_id: pi1.id, name: pi1.name, status: 'running', sent: 120, received: 120, total: 800, records_ingested: 0, error: '', facts: {}, network: null, clock: null, resources: null },
  ],
});

const completedBench: Run = runFixture({
  ...runningBench,
  status: 'done',
  finished_at: '2025-01-02T10:01:00Z',
  devices: runningBench.devices.map((d) => ({ ...d, status: 'done', sent: 800, received: 800, records_ingested: 800 })),
  // In the server's order (mechanism name, size, operation name): the page re-sorts them.
  bench_summary: [
    benchRow('aes-128-cbc', 'decrypt', 16, 1.6, { std_us: null, var_us2: null }),
    benchRow('aes-128-cbc', 'encrypt', 16, 1.5, { std_us: 0.1, var_us2: 0.01, calls_per_repetition: 67 }),
    benchRow('aes-128-cbc', 'decrypt', 8192, 20.5),
    benchRow('aes-128-cbc', 'encrypt', 8192, 20),
    benchRow('rsa-2048-pkcs1v15', 'sign', 16, 1500, { std_us: 12 }),
    benchRow('rsa-2048-pkcs1v15', 'verify', 16, 40, { std_us: 2 }),
    benchRow('rsa-2048-pkcs1v15', 'sign', 8192, 1510, { std_us: 13 }),
    benchRow('rsa-2048-pkcs1v15', 'verify', 8192, 45, { std_us: 3 }),
  ],
});

const runningThroughput: Run = runFixture({
  ...runningRun,
  experiment: { id: 'e0000000-0000-4000-8000-000000000003', name: 'MQTT-SN lightweight ciphers' },
  kind: 'throughput',
  spec: { mechanisms: ['none', 'aes-128-cbc', 'present-80-cbc'], data_sizes: [1, 1280], repetitions: 2, window_ms: 2000 },
  devices: [
    // Two windows (loopback, network) per mechanism, payload size and repetition.
    { device_id: pi1.id, name: pi1.name, status: 'running', sent: 3, received: 3, total: 24, records_ingested: 0, error: '', facts: {}, network: null, clock: null, resources: null },
  ],
});

const throughputRow = (
  mechanism: string,
  operation: BenchOperation,
  payloadBytes: number,
  packetsPerS: number,
  std: number | null,
  relativeCost: number | null,
): BenchSummaryRow => ({
  ...benchRow(mechanism, operation, payloadBytes, 2_000_000, { n: 2, throughput_mb_s: 0 }),
  packets_per_s_mean: packetsPerS,
  packets_per_s_std: std,
  relative_cost: relativeCost,
});

const completedThroughput: Run = runFixture({
  ...runningThroughput,
  status: 'done',
  finished_at: '2025-01-02T10:01:00Z',
  devices: runningThroughput.devices.map((d) => ({ ...d, status: 'done', sent: 24, received: 24, records_ingested: 24 })),
  // In the server's order (mechanism name, operation name, size): the page re-sorts them.
  bench_summary: [
    throughputRow('aes-128-cbc', 'secure', 1, 80_000, 900, 2.5),
    throughputRow('aes-128-cbc', 'secure', 1280, 20_000, 250, 7.5),
    throughputRow('aes-128-cbc', 'send', 1, 40_000, 500, 1.5),
    throughputRow('aes-128-cbc', 'send', 1280, 15_000, 200, 3),
    throughputRow('none', 'secure', 1, 200_000, 1500, 1),
    throughputRow('none', 'secure', 1280, 150_000, 1000, 1),
    throughputRow('none', 'send', 1, 60_000, 800, 1),
    throughputRow('none', 'send', 1280, 45_000, 700, 1),
    throughputRow('present-80-cbc', 'secure', 1, 50_000.04, 600, 4),
    throughputRow('present-80-cbc', 'secure', 1280, 5_000, 50, 30),
    throughputRow('present-80-cbc', 'send', 1, 30_000, null, 2),
    throughputRow('present-80-cbc', 'send', 1280, 4_500, 45, 10),
  ],
});

/** Props of the most recent figure of this trace type handed to the (mocked) Plotly seam. */
const lastFigure = (type: string) =>
  plotlyFigure.mock.calls.map(([props]) => props as PlotlyFigureProps).filter((f) => f.data[0]?.type === type).at(-1);

/** Props of the most recent figure whose value axis has this title. */
const lastFigureOf = (valueLabel: string) =>
  plotlyFigure.mock.calls
    .map(([props]) => props as PlotlyFigureProps)
    .filter((f) => f.layout.yaxis?.title?.text === valueLabel)
    .at(-1);

const PACKETS_AXIS = 'Packets per second, ± std dev';
const RELATIVE_COST_AXIS = 'Relative cost (×, None = 1)';

describe('Run page', () => {
  it('should show live progress, then the charts and statistics from the aggregated endpoints once completed', async () => {
    plotlyFigure.mockClear();
    // The results endpoints answer for runs they know; the override below serves its polls.
    db.runs.push(completedRun);
    arrangeResults();
    // First poll: running. Every later poll: completed.
    let polls = 0;
    server.use(http.get('/api/runs/:id/', () => HttpResponse.json(polls++ === 0 ? runningRun : completedRun)));

    const paths = await requestedPaths(async () => {
      renderApp(`/runs/${RUN_ID}`);

      expect(await screen.findByRole('heading', { name: 'Run: QoS 1 baseline' })).toBeInTheDocument();
      expect(screen.getByRole('status')).toHaveTextContent('Status: running');
      const bar = screen.getByRole('progressbar', { name: 'pi-lab-1 progress' });
      expect(bar).toHaveAttribute('aria-valuenow', '40');
      expect(bar).toHaveAttribute('aria-valuemax', '100');
      expect(screen.getByText('38/100 received')).toBeInTheDocument();
      expect(screen.getByRole('progressbar', { name: 'pi-lab-2 progress' })).toHaveAttribute('aria-valuenow', '10');
      expect(screen.queryByRole('table', { name: 'Summary' })).not.toBeInTheDocument();

      // The 1 s refetch brings the completed run; its statistics come from GET /statistics/.
      const table = await screen.findByRole('table', { name: 'Summary' }, { timeout: 3000 });
      expect(screen.getByRole('status')).toHaveTextContent('Status: done');
      expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();

      expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
        'Device', 'n', 'Lost', 'Rejected', 'Mean (ms)', '95% CI of mean (ms)', 'Median (ms)',
        '95% CI of median (ms)', 'Q1 (ms)', 'Q3 (ms)',
        'p95 (ms)', 'p99 (ms)', 'Min (ms)', 'Max (ms)', 'Std dev (ms)', 'Variance (ms²)',
      ]);
      const pi1Row = within(table).getByRole('row', { name: /pi-lab-1/ });
      expect(within(pi1Row).getAllByRole('cell').map((c) => c.textContent)).toEqual([
        '100', '0', '0', '12.346', '11.700 – 12.990', '12.000', '11.500 – 12.500', '10.000', '14.000', '20.500',
        '25.000', '8.100', '30.000', '3.210', '10.304',
      ]);
      // One delivered message: no interval, no spread.
      const pi2Cells = within(within(table).getByRole('row', { name: /pi-lab-2/ })).getAllByRole('cell');
      expect(pi2Cells.map((c) => c.textContent).slice(0, 5)).toEqual(['1', '97', '2', '15.000', '—']);
      expect(pi2Cells.at(-1)).toHaveTextContent('—');
      expect(within(table).getByRole('rowheader', { name: 'All devices' })).toBeInTheDocument();
      expect(screen.getByText('13.673 ms')).toBeInTheDocument();
      expect(screen.getByText('1 run: no interval below 2 runs')).toBeInTheDocument();
      // No payload security: no securing times.
      expect(screen.queryByRole('table', { name: 'Securing times' })).not.toBeInTheDocument();

      // The charts draw the server's plot data: bins, boxes, the RTT over the sequence.
      expect(screen.getByRole('region', { name: 'Round-trip time histogram' })).toBeInTheDocument();
      expect(screen.getByRole('region', { name: 'Round-trip time boxplot' })).toBeInTheDocument();
      expect(screen.getByRole('region', { name: 'Round-trip time over the sequence' })).toBeInTheDocument();
      await vi.waitFor(() => {
        expect(lastFigure('bar')?.data).toEqual([
          expect.objectContaining({ name: 'pi-lab-1', x: [12, 20, 28], width: [8, 8, 8], y: [70, 25, 5] }),
          expect.objectContaining({ name: 'pi-lab-2', y: [0, 1, 0] }),
        ]);
        // The boxes carry their device's mean once the statistics are in.
        expect(lastFigure('box')?.data).toEqual([
          expect.objectContaining({ name: 'pi-lab-1', q1: [10], median: [12], q3: [14], lowerfence: [8.1], upperfence: [19.9], mean: [12.3456] }),
          expect.objectContaining({ name: 'pi-lab-2', median: [15], mean: [15] }),
          expect.objectContaining({ name: 'Outliers (sample)', x: ['pi-lab-1', 'pi-lab-1'], y: [25, 30] }),
        ]);
        expect(lastFigureOf('Round-trip time (ms)')?.data.at(-1)).toMatchObject({ name: 'Mean', x: [24.5, 74.5], y: [12.5, 12.2] });
      });
    });

    expect(paths).toContain(`/api/runs/${RUN_ID}/statistics/`);
    expect(paths).toContain(`/api/runs/${RUN_ID}/distribution/`);
    expect(paths.filter((path) => path.endsWith('/rtt/'))).toEqual([]);
  });

  it('should switch the distribution between a histogram and a violin per device', async () => {
    plotlyFigure.mockClear();
    db.runs.push(completedRun);
    arrangeResults();
    const { user } = renderApp(`/runs/${RUN_ID}`);

    const panel = await screen.findByRole('region', { name: 'Round-trip time histogram' });
    expect(within(panel).getByRole('radio', { name: 'Histogram' })).toBeChecked();
    await vi.waitFor(() => expect(lastFigure('bar')).toBeDefined());

    await user.click(within(panel).getByRole('radio', { name: 'Violin' }));
    const violin = screen.getByRole('region', { name: 'Round-trip time violin' });
    expect(within(violin).getByRole('radio', { name: 'Violin' })).toBeChecked();
    await vi.waitFor(() => {
      const figure = plotlyFigure.mock.calls.map(([props]) => props as PlotlyFigureProps).findLast((f) => f.data[0]?.type === 'scatter' && (f.data[0] as { fill?: string }).fill === 'toself');
      expect(figure?.data).toEqual([
        expect.objectContaining({ name: 'pi-lab-1', y: [8, 20, 32, 32, 20, 8] }),
        // Too few values for a density: an empty outline, the tick still names it.
        expect.objectContaining({ name: 'pi-lab-2', x: [], y: [] }),
      ]);
      expect(figure?.layout.xaxis).toMatchObject({ ticktext: ['pi-lab-1', 'pi-lab-2'] });
    });
  });

  it('should link the four exports and copy the methods paragraph', async () => {
    db.runs.push(completedRun);
    arrangeResults();
    const { user } = renderApp(`/runs/${RUN_ID}`);
    // After renderApp: user-event's setup() installs its own clipboard stub.
    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue();

    const exports = await screen.findByRole('region', { name: 'Exports' });
    for (const file of ['records.csv', 'records.parquet', 'summary.csv', 'summary.parquet']) {
      expect(within(exports).getByRole('link', { name: file })).toHaveAttribute('href', `/api/runs/${RUN_ID}/export/${file}`);
    }

    const methods = screen.getByRole('region', { name: 'Methods paragraph' });
    expect(await within(methods).findByText('Round-trip times were measured with IoTSecBench 0.1.0.')).toBeInTheDocument();
    await user.click(within(methods).getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith('Round-trip times were measured with IoTSecBench 0.1.0.');
    expect(within(methods).getByText('Copied.')).toBeInTheDocument();

    expect(screen.getByRole('link', { name: 'Compare with…' })).toHaveAttribute('href', `/compare?run=${RUN_ID}`);
  });

  it('should show the error of a failed run', async () => {
    db.runs.push({ ...runningRun, status: 'failed', error: 'Device pi-lab-2 did not respond.' });
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('alert')).toHaveTextContent('Device pi-lab-2 did not respond.');
    expect(screen.getByRole('status')).toHaveTextContent('Status: failed');
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Summary' })).not.toBeInTheDocument();
  });

  it('should show a partial run as partial, why each device stopped, and its results', async () => {
    const reason = 'agent stopped during the run (37 of 100 messages measured; uploaded after the agent restarted)';
    db.runs.push({
      ...completedRun,
      status: 'partial',
      error: `pi-lab-2: ${reason}`,
      devices: completedRun.devices.map((d, i) =>
        i === 1 ? { ...d, status: 'partial', sent: 37, received: 37, records_ingested: 37, error: reason } : d,
      ),
    });
    arrangeResults();
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('table', { name: 'Summary' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Status: partial');
    expect(screen.getByRole('note')).toHaveTextContent('The run is partial');
    const errors = screen.getByRole('region', { name: 'Device errors' });
    expect(errors).toHaveTextContent(`pi-lab-2: ${reason}`);
    expect(screen.getByRole('region', { name: 'Exports' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('should show what a cancelled run measured before it stopped', async () => {
    db.runs.push({
      ...completedRun,
      status: 'cancelled',
      error: 'Cancelled by e2e-user.',
      devices: completedRun.devices.map((d) => ({ ...d, status: 'partial', sent: 40, received: 40, records_ingested: 40 })),
    });
    arrangeResults();
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('table', { name: 'Summary' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Status: cancelled');
    expect(screen.getByText(/The figures below cover what was measured and stored before it stopped/)).toBeInTheDocument();
  });

  it("should show a messaging run's interval distribution, mean and seed", async () => {
    db.runs.push({
      ...runningRun,
      spec: { ...runningRun.spec, interval_ms: 500, interval_distribution: 'exponential', interval_seed: 123 },
    });
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByText('Interval: exponential, mean 500 ms, seed 123')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Status: running');
  });

  it('should show no interval for a run dispatched without a distribution', async () => {
    db.runs.push(runningRun);
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('status')).toHaveTextContent('Status: running');
    expect(screen.queryByText(/^Interval:/)).not.toBeInTheDocument();
  });

  it('should show the securing and unsecuring times raw, their harness floor and net of it when the payload was secured', async () => {
    db.runs.push({
      ...completedRun,
      spec: { ...completedRun.spec, security: 'aes-128-cbc' },
      summary: completedRun.summary.map((row) => ({
        ...row,
        secure_mean_us: 12.34567,
        unsecure_mean_us: 8,
        floor_secure_mean_us: 0.3,
        floor_unsecure_mean_us: 0.71,
        net_secure_mean_us: 12.04567,
        net_unsecure_mean_us: 7.29,
        secure_median_us: 5.5,
        unsecure_median_us: 7.9,
        net_secure_median_us: 5.2,
        net_unsecure_median_us: 7.19,
      })),
    });
    arrangeResults();
    renderApp(`/runs/${RUN_ID}`);

    const table = await screen.findByRole('table', { name: 'Securing times' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Device', 'n',
      'Secure mean (µs)', 'Secure median (µs)', 'Secure floor (µs)', 'Secure net mean (µs)', 'Secure net median (µs)',
      'Unsecure mean (µs)', 'Unsecure median (µs)', 'Unsecure floor (µs)', 'Unsecure net mean (µs)',
      'Unsecure net median (µs)',
    ]);
    const pi1Row = within(table).getByRole('row', { name: /pi-lab-1/ });
    expect(within(pi1Row).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '100', '12.346', '5.500', '0.300', '12.046', '5.200', '8.000', '7.900', '0.710', '7.290', '7.190',
    ]);
    expect(screen.getByText(/Floor: the Null mechanism’s cost on the same path/)).toHaveTextContent(
      'measured on every message of this run; net = raw − floor. Medians: a few slow (cold) calls',
    );
    expect(screen.getByRole('region', { name: 'Round-trip time histogram' })).toBeInTheDocument();
  });

  it("should show a SRUP run's signing and verifying times with their floor though its payload security is none", async () => {
    db.runs.push({
      ...completedRun,
      spec: { ...completedRun.spec, protocol: 'srup', srup_signature: 'ed25519', security: 'none' },
      summary: completedRun.summary.map((row) => ({
        ...row,
        secure_mean_us: 300,
        unsecure_mean_us: 500,
        floor_secure_mean_us: 0.5,
        floor_unsecure_mean_us: 0.5,
        net_secure_mean_us: 299.5,
        net_unsecure_mean_us: 499.5,
        secure_median_us: 300,
        unsecure_median_us: 500,
        net_secure_median_us: 299.5,
        net_unsecure_median_us: 499.5,
      })),
    });
    arrangeResults();
    renderApp(`/runs/${RUN_ID}`);

    const table = await screen.findByRole('table', { name: 'Securing times' });
    const pi1Row = within(table).getByRole('row', { name: /pi-lab-1/ });
    expect(within(pi1Row).getAllByRole('cell').map((c) => c.textContent).slice(1, 6)).toEqual([
      '300.000', '300.000', '0.500', '299.500', '299.500',
    ]);
  });

  it('should show no securing times when the run had no mechanism', async () => {
    db.runs.push(completedRun);
    arrangeResults();
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('region', { name: 'Round-trip time histogram' })).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Securing times' })).not.toBeInTheDocument();
  });

  it('should show dashes for the floor and net when the run was measured by an agent without a floor', async () => {
    db.runs.push({
      ...completedRun,
      spec: { ...completedRun.spec, security: 'aes-128-cbc' },
      summary: completedRun.summary.map((row) => ({
        ...row,
        ...NO_SECURING,
        secure_mean_us: 5,
        unsecure_mean_us: 6,
        secure_median_us: 4.5,
        unsecure_median_us: 5.5,
      })),
    });
    arrangeResults();
    renderApp(`/runs/${RUN_ID}`);

    const table = await screen.findByRole('table', { name: 'Securing times' });
    const totalRow = within(table).getByRole('row', { name: /All devices/ });
    expect(within(totalRow).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '101', '5.000', '4.500', '—', '—', '—', '6.000', '5.500', '—', '—', '—',
    ]);
  });

  it.each([
    ['cipher benchmark', completedBench, 'Cipher benchmark'],
    ['throughput', completedThroughput, 'Throughput'],
  ])('should offer a %s run its exports and methods but ask for no round-trip results', async (_kind, run, tableName) => {
    db.runs.push(run);
    db.methods[RUN_ID] = { run_id: RUN_ID, text: 'Cipher timings were measured with IoTSecBench 0.1.0.' };
    const paths = await requestedPaths(async () => {
      renderApp(`/runs/${RUN_ID}`);
      expect(await screen.findByRole('table', { name: tableName })).toBeInTheDocument();
      expect(await screen.findByText('Cipher timings were measured with IoTSecBench 0.1.0.')).toBeInTheDocument();
    });
    expect(paths.filter((path) => /statistics|distribution|sizes/.test(path))).toEqual([]);
    const exports = screen.getByRole('region', { name: 'Exports' });
    expect(within(exports).getByRole('link', { name: 'records.csv' })).toHaveAttribute(
      'href',
      `/api/runs/${RUN_ID}/export/records.csv`,
    );
    expect(within(exports).getByText(/one row per (sample|window)/)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Compare with…' })).not.toBeInTheDocument();
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
      'Device', 'Mechanism', 'Operation', 'Data size', 'n', 'Mean (µs)', 'Net of Null (µs)', 'Std dev (µs)', 'Variance (µs²)',
      'CPU (µs)', 'Throughput (MB/s)', 'Peak RSS (KB)', 'Calls/rep',
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
      'AES-128-CBC', 'encrypt', '16 B', '100', '1.500', '—', '0.100', '0.010', '1.350', '10.667', '21504', '67',
    ]);
    // Rows of agents that timed one call per repetition say 1.
    expect(within(rows[2]!).getAllByRole('cell').at(-1)?.textContent).toBe('1');
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

  it('should show throughput progress in windows, then its table and charts', async () => {
    let polls = 0;
    server.use(http.get('/api/runs/:id/', () => HttpResponse.json(polls++ === 0 ? runningThroughput : completedThroughput)));
    const { user } = renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('heading', { name: 'Run: MQTT-SN lightweight ciphers' })).toBeInTheDocument();
    const bar = screen.getByRole('progressbar', { name: 'pi-lab-1 progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '3');
    expect(bar).toHaveAttribute('aria-valuemax', '24');
    expect(bar).toHaveAttribute('aria-valuetext', '3 of 24 windows done');
    expect(screen.getByText('3/24 windows done')).toBeInTheDocument();

    // The 1 s refetch brings the completed run.
    const table = await screen.findByRole('table', { name: 'Throughput' }, { timeout: 3000 });
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Cipher benchmark' })).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Summary' })).not.toBeInTheDocument();

    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Device', 'Mechanism', 'Mode', 'Payload', 'Windows (n)', 'Packets/s (mean)', 'Std dev', 'Relative cost',
    ]);
    // Mechanisms by label, in catalogue order ("none" first) once the catalogue is in.
    await within(table).findAllByRole('cell', { name: 'PRESENT-80-CBC' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(0, 3).map((c) => c.textContent).join(' | '))).toEqual([
      'None | Secure only (nothing sent) | 1 B',
      'None | Secure only (nothing sent) | 1280 B',
      'None | Secure + send over UDP | 1 B',
      'None | Secure + send over UDP | 1280 B',
      'AES-128-CBC | Secure only (nothing sent) | 1 B',
      'AES-128-CBC | Secure only (nothing sent) | 1280 B',
      'AES-128-CBC | Secure + send over UDP | 1 B',
      'AES-128-CBC | Secure + send over UDP | 1280 B',
      'PRESENT-80-CBC | Secure only (nothing sent) | 1 B',
      'PRESENT-80-CBC | Secure only (nothing sent) | 1280 B',
      'PRESENT-80-CBC | Secure + send over UDP | 1 B',
      'PRESENT-80-CBC | Secure + send over UDP | 1280 B',
    ]);
    expect(within(rows[0]!).getByRole('rowheader', { name: 'pi-lab-1' })).toBeInTheDocument();
    expect(within(rows[0]!).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      'None', 'Secure only (nothing sent)', '1 B', '2', '200000.0', '1500.0', '1.00×',
    ]);
    expect(within(rows[8]!).getAllByRole('cell').map((c) => c.textContent).slice(4)).toEqual(['50000.0', '600.0', '4.00×']);
    expect(within(rows[10]!).getAllByRole('cell').map((c) => c.textContent).slice(4)).toEqual(['30000.0', '—', '2.00×']);

    // Packets per second: one payload size at a time, mechanisms on the axis, one series per mode.
    const packetsPanel = screen.getByRole('region', { name: 'Packets per second' });
    const payloadSelect = within(packetsPanel).getByRole('combobox', { name: 'Payload' });
    expect(payloadSelect).toHaveDisplayValue('1 B');
    expect(within(payloadSelect).getAllByRole('option').map((o) => o.textContent)).toEqual(['1 B', '1280 B']);
    const categories = ['None', 'AES-128-CBC', 'PRESENT-80-CBC'];
    await vi.waitFor(() =>
      expect(lastFigureOf(PACKETS_AXIS)?.data).toEqual([
        expect.objectContaining({
          type: 'bar',
          name: 'Secure only (nothing sent)',
          x: categories,
          y: [200_000, 80_000, 50_000.04],
          error_y: { type: 'data', array: [1500, 900, 600], visible: true },
        }),
        expect.objectContaining({
          type: 'bar',
          name: 'Secure + send over UDP',
          x: categories,
          y: [60_000, 40_000, 30_000],
          error_y: { type: 'data', array: [800, 500, null], visible: true },
        }),
      ]),
    );
    // Linear at first: packet rates of the usual ciphers share one order of magnitude.
    expect(lastFigureOf(PACKETS_AXIS)?.layout.yaxis).toMatchObject({ type: 'linear' });

    // Relative cost: the same payload size, no error bars.
    const costPanel = screen.getByRole('region', { name: 'Relative cost' });
    expect(costPanel).toHaveTextContent('Payload 1 B');
    await vi.waitFor(() =>
      expect(lastFigureOf(RELATIVE_COST_AXIS)?.data).toEqual([
        expect.objectContaining({ type: 'bar', name: 'Secure only (nothing sent)', x: categories, y: [1, 2.5, 4] }),
        expect.objectContaining({ type: 'bar', name: 'Secure + send over UDP', x: categories, y: [1, 1.5, 2] }),
      ]),
    );
    expect(lastFigureOf(RELATIVE_COST_AXIS)?.data[0]).not.toHaveProperty('error_y');

    await user.selectOptions(payloadSelect, '1280 B');
    await user.click(within(packetsPanel).getByRole('checkbox', { name: 'Log scale' }));
    await vi.waitFor(() => {
      expect(lastFigureOf(PACKETS_AXIS)?.data.map((trace) => (trace as { y: unknown }).y)).toEqual([
        [150_000, 20_000, 5_000],
        [45_000, 15_000, 4_500],
      ]);
      expect(lastFigureOf(PACKETS_AXIS)?.layout.yaxis).toMatchObject({ type: 'log' });
      expect(lastFigureOf(RELATIVE_COST_AXIS)?.data.map((trace) => (trace as { y: unknown }).y)).toEqual([
        [1, 7.5, 30],
        [1, 3, 10],
      ]);
    });
    expect(costPanel).toHaveTextContent('Payload 1280 B');
    expect(lastFigureOf(RELATIVE_COST_AXIS)?.layout.yaxis).toMatchObject({ type: 'linear' });
  });

  it('should show no relative costs when the throughput run did not measure the None baseline', async () => {
    // Earlier tests' figures stay recorded on the module-level stub.
    plotlyFigure.mockClear();
    db.runs.push({
      ...completedThroughput,
      bench_summary: completedThroughput.bench_summary
        .filter((row) => row.mechanism !== 'none')
        .map((row) => ({ ...row, relative_cost: null })),
    });
    renderApp(`/runs/${RUN_ID}`);

    const table = await screen.findByRole('table', { name: 'Throughput' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(8);
    for (const row of rows) expect(within(row).getAllByRole('cell').at(-1)).toHaveTextContent('—');
    expect(within(screen.getByRole('region', { name: 'Relative cost' })).getByText(/did not measure the None baseline/)).toBeInTheDocument();
    await vi.waitFor(() => expect(lastFigureOf(PACKETS_AXIS)).toBeDefined());
    expect(lastFigureOf(RELATIVE_COST_AXIS)).toBeUndefined();
  });

  it('should list the power traces attached to the run and upload one attached to it', async () => {
    db.runs.push(completedRun);
    arrangeResults();
    db.powerTraces.push(
      parsedTraceFixture({ id: 'a0000000-0000-4000-8000-000000000001', name: 'srup run', run: RUN_ID }),
      powerTraceFixture({ id: 'a0000000-0000-4000-8000-000000000002', name: 'other run', run: 'r0000000-0000-4000-8000-000000000009' }),
    );
    let sent: Record<string, string> = {};
    server.use(
      http.post('/api/power-traces/', async ({ request }) => {
        const form = await request.formData();
        sent = Object.fromEntries(
          ['run', 'device', 'baseline_name'].flatMap((key) => {
            const value = form.get(key);
            return typeof value === 'string' ? [[key, value]] : [];
          }),
        );
        const trace = powerTraceFixture({ id: 'a0000000-0000-4000-8000-0000000000bb', name: 'new one', run: RUN_ID });
        db.powerTraces.push(trace);
        return HttpResponse.json(trace, { status: 201 });
      }),
    );
    const { user, router } = renderApp(`/runs/${RUN_ID}`);

    const section = await screen.findByRole('region', { name: 'Power traces' });
    const table = await within(section).findByRole('table', { name: 'Power traces of this run' });
    expect(within(table).getAllByRole('row')).toHaveLength(2);
    expect(within(table).getByRole('link', { name: 'srup run' })).toHaveAttribute(
      'href',
      '/power/a0000000-0000-4000-8000-000000000001',
    );
    expect(within(table).queryByRole('columnheader', { name: 'Run' })).not.toBeInTheDocument();

    // Only the run's devices, and no baseline: this trace belongs to the run.
    const upload = within(section).getByRole('form', { name: 'Upload a power trace' });
    const device = within(upload).getByRole('combobox', { name: 'Device' });
    expect(within(device).getAllByRole('option').map((o) => o.textContent)).toEqual(['No device', 'pi-lab-1', 'pi-lab-2']);
    expect(within(section).queryByRole('textbox', { name: 'Baseline name (optional)' })).not.toBeInTheDocument();
    await user.upload(within(section).getByLabelText('Choose a trace file'), new File(['t,i'], 'ppk2.csv'));
    await user.selectOptions(device, 'pi-lab-2');
    await user.click(within(section).getByRole('button', { name: 'Upload' }));

    expect(await screen.findByRole('heading', { name: 'Power trace: new one' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/power/a0000000-0000-4000-8000-0000000000bb');
    expect(sent).toEqual({ run: RUN_ID, device: pi2.id });
  });
});
