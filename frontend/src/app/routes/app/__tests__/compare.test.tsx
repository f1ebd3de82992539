import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import {
  db,
  experimentFixture,
  roundTripStatisticsFixture,
  runBriefFixture,
  runDistributionFixture,
  runFixture,
  runStatisticsFixture,
} from '@/testing/mocks/db';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { ExperimentKind, Run, RunComparison } from '@/types/api';

// The seam: Plotly cannot draw in jsdom (see run.test.tsx).
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const MQTT_RUN = 'a1111111-0000-4000-8000-000000000001';
const SRUP_RUN = 'b2222222-0000-4000-8000-000000000002';
const OTHER_RUN = 'c3333333-0000-4000-8000-000000000003';
const BENCH_RUN = 'd4444444-0000-4000-8000-000000000004';
const RUNNING_RUN = 'e5555555-0000-4000-8000-000000000005';

const run = (id: string, experimentId: string, name: string, kind: ExperimentKind = 'messaging'): Run => runFixture({
  id,
  experiment: { id: experimentId, name },
  kind,
  status: 'done',
  error: '',
  spec: {},
  created_at: '2025-01-02T10:00:00Z',
  started_at: '2025-01-02T10:00:01Z',
  finished_at: '2025-01-02T10:01:00Z',
  devices: [],
  summary: [],
  bench_summary: [],
});

/** Two messaging experiments (one with a run still going) and a cipher benchmark. */
const arrangeWorkspace = () => {
  db.experiments.push(
    experimentFixture({
      id: 'e0000000-0000-4000-8000-00000000000a',
      name: 'MQTT baseline',
      runs: [
        runBriefFixture({ id: MQTT_RUN, status: 'done', created_at: '2025-01-02T10:00:00Z' }),
        runBriefFixture({ id: OTHER_RUN, status: 'done', created_at: '2025-01-01T10:00:00Z' }),
        runBriefFixture({ id: RUNNING_RUN, status: 'running', created_at: '2025-01-05T10:00:00Z' }),
      ],
    }),
    experimentFixture({
      id: 'e0000000-0000-4000-8000-00000000000b',
      name: 'SRUP Ed25519',
      runs: [runBriefFixture({ id: SRUP_RUN, status: 'done', created_at: '2025-01-03T10:00:00Z' })],
    }),
    experimentFixture({
      id: 'e0000000-0000-4000-8000-00000000000c',
      name: 'OpenSSL on Pi',
      kind: 'cipher_bench',
      runs: [runBriefFixture({ id: BENCH_RUN, status: 'done', created_at: '2025-01-04T10:00:00Z' })],
    }),
  );
  db.runs.push(
    run(MQTT_RUN, 'e0000000-0000-4000-8000-00000000000a', 'MQTT baseline'),
    run(OTHER_RUN, 'e0000000-0000-4000-8000-00000000000a', 'MQTT baseline'),
    run(SRUP_RUN, 'e0000000-0000-4000-8000-00000000000b', 'SRUP Ed25519'),
  );
  for (const id of [MQTT_RUN, SRUP_RUN, OTHER_RUN]) db.distributions[id] = runDistributionFixture(id);
};

const comparison: RunComparison = {
  runs: [
    {
      run_id: MQTT_RUN,
      experiment_id: 'e0000000-0000-4000-8000-00000000000a',
      experiment_name: 'MQTT baseline',
      label: 'MQTT baseline · QoS 1',
      repeat: 1,
      treatment: { protocol: 'mqtt' },
      conditions: { qos: 1 },
      statistics: runStatisticsFixture(MQTT_RUN, {
        all_devices: roundTripStatisticsFixture({ device_id: null, device_name: 'All devices', n: 200, mean_ms: 10, ci_low_ms: 9.5, ci_high_ms: 10.5, min_ms: 2, max_ms: 40 }),
        mean_of_device_means_ms: 10.25,
      }),
    },
    {
      run_id: SRUP_RUN,
      experiment_id: 'e0000000-0000-4000-8000-00000000000b',
      experiment_name: 'SRUP Ed25519',
      label: 'SRUP Ed25519 · QoS 1',
      repeat: 1,
      treatment: { protocol: 'srup' },
      conditions: { qos: 1 },
      statistics: runStatisticsFixture(SRUP_RUN, {
        all_devices: roundTripStatisticsFixture({ device_id: null, device_name: 'All devices', n: 190, mean_ms: 66.1, min_ms: 30, max_ms: 120 }),
        mean_of_device_means_ms: 66.35,
      }),
    },
  ],
  pairs: [
    {
      baseline_run_id: MQTT_RUN,
      treatment_run_id: SRUP_RUN,
      baseline_run_ids: [MQTT_RUN],
      treatment_run_ids: [SRUP_RUN],
      baseline_label: 'MQTT baseline · QoS 1',
      treatment_label: 'SRUP Ed25519 · QoS 1',
      repeat: 1,
      parameter: 'protocol',
      interval_level: 'messages',
      differs_in: [{ key: 'protocol', baseline: 'mqtt', treatment: 'srup' }],
      baseline_mean_ms: 10.25,
      treatment_mean_ms: 66.35,
      overhead_ms: 56.1,
      ci_low_ms: 54.2,
      ci_high_ms: 58.05,
      relative_overhead_pct: 547.3171,
      verdict: 'slower',
      verdict_text: 'slower than the baseline at the message level only',
      max_rate_hz: 17.825,
    },
  ],
  bootstrap: { resamples: 2000, draw_max: 1000, seed: 2021 },
};

const MQTT_LABEL = 'MQTT baseline · QoS 1';
const SRUP_LABEL = 'SRUP Ed25519 · QoS 1';

describe('Compare page', () => {
  afterEach(() => server.events.removeAllListeners('request:start'));

  it('should read the runs from the URL and show their pairs, statistics and distributions', async () => {
    arrangeWorkspace();
    const compareQueries: string[][] = [];
    const distributionQueries: string[] = [];
    server.use(
      http.get('/api/compare/', ({ request }) => {
        compareQueries.push(new URL(request.url).searchParams.getAll('run'));
        return HttpResponse.json(comparison);
      }),
    );
    server.events.on('request:start', ({ request }) => {
      const url = new URL(request.url);
      if (url.pathname.endsWith('/distribution/')) distributionQueries.push(url.search);
    });
    renderApp(`/compare?run=${MQTT_RUN}&run=${SRUP_RUN}`);

    const pairs = await screen.findByRole('table', { name: 'Paired comparisons' });
    expect(compareQueries).toEqual([[MQTT_RUN, SRUP_RUN]]);
    expect(within(pairs).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Baseline → treatment', 'Overhead (ms) [95% CI]', 'Relative', 'Verdict', 'Max rate (Hz)', 'Compared over',
    ]);
    const pair = within(pairs).getAllByRole('row')[1]!;
    // Runs named by their labels, never by a hash; no p-value across runs.
    expect(within(pair).getByRole('rowheader')).toHaveTextContent(`${MQTT_LABEL} → ${SRUP_LABEL}protocol: mqtt → srup`);
    expect(within(pair).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '+56.10054.200 – 58.050', '+547.3%', 'slower than the baseline at the message level only', '17.8',
      'repeat 1 (one run a side)',
    ]);
    expect(within(pairs).queryByText(/p-value|Mann-Whitney/)).toBeNull();

    // All devices of each run, one column per run, each linking to its run page.
    const side = screen.getByRole('table', { name: 'Statistics side by side' });
    expect(within(side).getByRole('link', { name: SRUP_LABEL })).toHaveAttribute('href', `/runs/${SRUP_RUN}`);
    expect(within(within(side).getByRole('row', { name: /^Mean \(ms\)/ })).getAllByRole('cell').map((c) => c.textContent)).toEqual(['10.000', '66.100']);
    expect(within(within(side).getByRole('row', { name: /^95% CI/ })).getAllByRole('cell')[0]).toHaveTextContent('9.500 – 10.500');
    expect(within(within(side).getByRole('row', { name: /^Combined mean/ })).getAllByRole('cell').map((c) => c.textContent)).toEqual(['10.250', '66.350']);

    // Both runs' distributions on one range (the smallest to the largest round trip of either).
    expect(screen.getByRole('region', { name: 'Round-trip time distribution by run' })).toBeInTheDocument();
    await vi.waitFor(() => {
      const figure = plotlyFigure.mock.calls.map(([props]) => props as PlotlyFigureProps).findLast((f) => f.data[0]?.type === 'bar');
      expect(figure?.data).toEqual([
        // Pooled over the devices and scaled to unit area: 70 of 101 in a bin 8 ms wide.
        expect.objectContaining({ name: MQTT_LABEL, y: [70 / 808, 26 / 808, 5 / 808] }),
        expect.objectContaining({ name: SRUP_LABEL }),
      ]);
    });
    expect(new Set(distributionQueries)).toEqual(new Set(['?bins=100&min_ms=2&max_ms=120']));

    // The SRUP paper's Figures 7-10: the overhead with its (asymmetric) bootstrap interval.
    for (const name of ['Round trip per run', 'Mean round trip by device', 'Combined mean per condition', 'Overhead per condition', 'Distribution of the differences']) {
      expect(screen.getByRole('region', { name })).toBeInTheDocument();
    }
    await vi.waitFor(() => {
      const overhead = plotlyFigure.mock.calls.map(([props]) => props as PlotlyFigureProps).findLast((f) => f.data[0]?.name === 'Overhead');
      expect(overhead?.data[0]).toMatchObject({
        y: [56.1],
        error_y: { array: [expect.closeTo(1.95, 6)], arrayminus: [expect.closeTo(1.9, 6)], symmetric: false },
      });
    });

    // The picker shows the URL's runs as chosen.
    const picker = screen.getByRole('group', { name: 'Runs to compare' });
    expect(within(picker).getByRole('checkbox', { name: /^MQTT baseline, run of/, checked: true })).toBeInTheDocument();
  });

  it('should list only completed messaging runs and put the choice in the URL', async () => {
    arrangeWorkspace();
    const { user, router } = renderApp(`/compare?run=${MQTT_RUN}`);

    const picker = await screen.findByRole('group', { name: 'Runs to compare' });
    // Newest first; no cipher benchmark, no run still going.
    const boxes = within(picker).getAllByRole('checkbox');
    expect(boxes.map((box) => box.closest('label')?.textContent?.split(',')[0]?.trim())).toEqual([
      'SRUP Ed25519', 'MQTT baseline', 'MQTT baseline',
    ]);
    expect(boxes.map((box) => (box as HTMLInputElement).checked)).toEqual([false, true, false]);
    expect(screen.getByText('Choose at least 2 runs to compare.')).toBeInTheDocument();

    db.comparison = comparison;
    await user.click(boxes[0]!);
    expect(router.state.location.search).toBe(`?run=${MQTT_RUN}&run=${SRUP_RUN}`);
    expect(await screen.findByRole('table', { name: 'Paired comparisons' })).toBeInTheDocument();

    await user.click(within(picker).getAllByRole('checkbox')[1]!);
    expect(router.state.location.search).toBe(`?run=${SRUP_RUN}`);
    expect(screen.getByText('Choose at least 2 runs to compare.')).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Paired comparisons' })).not.toBeInTheDocument();
  });

  it('should open from the main navigation and from a run page', async () => {
    arrangeWorkspace();
    db.runs[0] = { ...db.runs[0]!, spec: { protocol: 'mqtt' } };
    db.statistics[MQTT_RUN] = runStatisticsFixture(MQTT_RUN);
    db.methods[MQTT_RUN] = { run_id: MQTT_RUN, text: 'Methods.' };
    const { user, router } = renderApp(`/runs/${MQTT_RUN}`);

    await user.click(await screen.findByRole('link', { name: 'Compare with…' }));
    expect(await screen.findByRole('heading', { name: 'Compare runs' })).toBeInTheDocument();
    expect(router.state.location.search).toBe(`?run=${MQTT_RUN}`);
    expect(screen.getByRole('link', { name: 'Compare' })).toHaveAttribute('href', '/compare');
  });
});
