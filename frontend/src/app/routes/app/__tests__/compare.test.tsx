import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { colourOf } from '@/components/charts/colours';
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
import type { DeviceDistribution, ExperimentKind, MechanismStatistics, Run, RunComparison } from '@/types/api';

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
      mechanism: null,
      mechanism_text: '',
    },
  ],
  unmatched: [],
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

  it('should show an interleaved run per mechanism in its colours and name the matched mechanism', async () => {
    const AES = 'aes-128-cbc';
    const INTERLEAVED_LABEL = 'Interleaved on lan · run of 2025-01-02 10:00';
    const AES_LABEL = 'AES alone on 4g · run of 2025-01-02 10:00';
    const ED_LABEL = 'Ed25519 on lan · run of 2025-01-02 10:00';
    const MATCHED = `Matched mechanism ${AES}: the interleaved side's ${AES} messages only.`;
    const NO_MATCH = `No mechanism to match: ${ED_LABEL} is ed25519; ${INTERLEAVED_LABEL} interleaves none, ${AES}.`;
    const part = (mechanism: string, mean: number): MechanismStatistics => {
      const row = roundTripStatisticsFixture({ n: 50, mean_ms: mean, min_ms: mean - 1, max_ms: mean + 1 });
      return {
        mechanism,
        devices: [row],
        all_devices: { ...row, device_id: null, device_name: 'All devices' },
        mean_of_device_means_ms: mean + 0.001,
        overhead: mechanism === 'none' ? null : { baseline: 'none', pairs: 50, overhead_ms: 0.05, ci_low_ms: 0.04, ci_high_ms: 0.06 },
      };
    };
    const compared = (id: string, label: string, treatment: Record<string, unknown>, mechanisms: MechanismStatistics[], mean: number) => ({
      run_id: id,
      experiment_id: 'e0000000-0000-4000-8000-00000000000a',
      experiment_name: label.split(' · ')[0]!,
      label,
      repeat: 1,
      treatment,
      conditions: {},
      statistics: runStatisticsFixture(id, {
        all_devices: roundTripStatisticsFixture({ device_id: null, device_name: 'All devices', mean_ms: mean, min_ms: 1, max_ms: 9 }),
        mechanisms,
      }),
    });
    db.comparison = {
      runs: [
        compared(MQTT_RUN, AES_LABEL, { protocol: 'mqtt', security: AES }, [], 4.5),
        // The mixed mean (3.1) of the interleaved run is shown nowhere.
        compared(SRUP_RUN, INTERLEAVED_LABEL, { protocol: 'mqtt', security: 'none' }, [part('none', 1.2), part(AES, 1.25)], 3.1),
        compared(OTHER_RUN, ED_LABEL, { protocol: 'mqtt', security: 'ed25519' }, [], 7.5),
      ],
      pairs: [
        {
          ...comparison.pairs[0]!,
          baseline_run_id: MQTT_RUN,
          treatment_run_id: SRUP_RUN,
          baseline_run_ids: [MQTT_RUN],
          treatment_run_ids: [SRUP_RUN],
          baseline_label: AES_LABEL,
          treatment_label: `${INTERLEAVED_LABEL} · ${AES}`,
          parameter: 'network_profile',
          differs_in: [
            { key: 'network_profile', baseline: '4g', treatment: 'lan' },
            { key: 'interleave_mechanisms', baseline: null, treatment: `none, ${AES}` },
          ],
          mechanism: AES,
          mechanism_text: MATCHED,
        },
      ],
      unmatched: [{ run_ids: [SRUP_RUN, OTHER_RUN], message: NO_MATCH }],
      bootstrap: comparison.bootstrap,
    };
    const entry = (mechanism: string | null, counts: number[]): DeviceDistribution => ({
      ...runDistributionFixture(SRUP_RUN).devices[0]!,
      mechanism,
      n: counts.reduce((a, b) => a + b, 0),
      counts,
    });
    arrangeWorkspace();
    db.distributions[SRUP_RUN] = { ...runDistributionFixture(SRUP_RUN), devices: [entry('none', [8, 2, 0]), entry(AES, [1, 8, 1])] };
    renderApp(`/compare?run=${MQTT_RUN}&run=${SRUP_RUN}&run=${OTHER_RUN}`);

    // The pair says which mechanism it matched; the run with none in common says so.
    const pairs = await screen.findByRole('table', { name: 'Paired comparisons' });
    expect(within(pairs).getAllByRole('rowheader')[0]).toHaveTextContent(MATCHED);
    expect(within(screen.getByRole('list', { name: 'Unmatched mechanisms' })).getByRole('listitem')).toHaveTextContent(NO_MATCH);

    // One column per mechanism of the interleaved run, next to the plain run of that mechanism.
    const side = screen.getByRole('table', { name: 'Statistics side by side' });
    expect(within(side).getAllByRole('columnheader').map((h) => h.textContent?.trim())).toEqual([
      'All devices', AES_LABEL, `${INTERLEAVED_LABEL} · ${AES}`, `${INTERLEAVED_LABEL} · none`, ED_LABEL,
    ]);
    expect(within(within(side).getByRole('row', { name: /^Mean \(ms\)/ })).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '4.500', '1.250', '1.200', '7.500',
    ]);
    // Each mechanism's own combined mean (the plain runs' fixture's is 13.673).
    expect(within(within(side).getByRole('row', { name: /^Combined mean/ })).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '13.673', '1.251', '1.201', '13.673',
    ]);
    const overheads = screen.getByRole('table', { name: 'Overhead against none within each interleaved run' });
    expect(within(overheads).getAllByRole('row').slice(1).map((r) => r.textContent?.trim())).toEqual([
      `${INTERLEAVED_LABEL} · ${AES}500.0500.040 – 0.060`,
    ]);

    // Charts: one series (and one box) per mechanism of the interleaved run, in its colour.
    const figureWith = (type: string, name: string) =>
      plotlyFigure.mock.calls
        .map(([props]) => props as PlotlyFigureProps)
        .findLast((f) => f.data[0]?.type === type && f.data.some((d) => (d as { name?: string }).name === name));
    await vi.waitFor(() => {
      const histogram = figureWith('bar', `${INTERLEAVED_LABEL} · none`);
      expect(histogram?.data.map((d) => (d as { name: string }).name)).toEqual([
        AES_LABEL, `${INTERLEAVED_LABEL} · none`, `${INTERLEAVED_LABEL} · ${AES}`, ED_LABEL,
      ]);
      expect(histogram?.data[1]).toMatchObject({ marker: { color: colourOf('none') }, y: [8 / 80, 2 / 80, 0] });
      expect(histogram?.data[2]).toMatchObject({ marker: { color: colourOf(AES) }, y: [1 / 80, 8 / 80, 1 / 80] });
    });
    const boxes = figureWith('box', `${INTERLEAVED_LABEL} · ${AES}`);
    expect(boxes?.data.filter((d) => (d as { name: string }).name.startsWith(INTERLEAVED_LABEL))).toEqual([
      expect.objectContaining({ name: `${INTERLEAVED_LABEL} · none`, marker: { color: colourOf('none') } }),
      expect.objectContaining({ name: `${INTERLEAVED_LABEL} · ${AES}`, marker: { color: colourOf(AES) } }),
    ]);
  });
});
