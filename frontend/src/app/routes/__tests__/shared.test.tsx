import { describe, expect, it, vi } from 'vitest';

import {
  db,
  experimentFixture,
  roundTripStatisticsFixture,
  runBriefFixture,
  runDistributionFixture,
  runFixture,
  runStatisticsFixture,
} from '@/testing/mocks/db';
import { requestedPaths } from '@/testing/mocks/server';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { ExperimentResults, Run, RunComparison, SharedContent } from '@/types/api';

// The seam: Plotly cannot draw in jsdom (see run.test.tsx).
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const TOKEN = 'tok_9xY-abc';
// The ids a shared page knows: the share's aliases (docs/sharing.md).
const RUN_A = 'a1111111-0000-4000-8000-00000000000a';
const RUN_B = 'b2222222-0000-4000-8000-00000000000b';

const sharedRun = (id: string, created: string): Run => runFixture({
  id,
  experiment: { id: 'e0000000-0000-4000-8000-0000000000aa', name: 'QoS 1 on LAN' },
  kind: 'messaging',
  status: 'done',
  error: '',
  spec: { protocol: 'mqtt', qos: 1, security: 'none', payload_size: 66, message_count: 100 },
  created_at: created,
  started_at: created,
  finished_at: created,
  devices: [],
  summary: [],
  bench_summary: [],
});

const content = (overrides: Partial<SharedContent>): SharedContent => ({
  kind: 'run',
  title: 'RTT on LAN',
  shared_at: '2025-01-06T10:00:00Z',
  expires_at: null,
  experiment: null,
  runs: [sharedRun(RUN_A, '2025-01-02T10:00:00Z')],
  ...overrides,
});

const arrangeResults = (runId: string) => {
  db.statistics[runId] = runStatisticsFixture(runId);
  db.distributions[runId] = runDistributionFixture(runId);
  db.methods[runId] = { run_id: runId, text: `Round-trip times were measured (run ${runId}).` };
};

/** An experiment shared with its two completed runs (RUN_A, then RUN_B), their results arranged. */
const shareExperiment = (title: string) => {
  const runs = [sharedRun(RUN_A, '2025-01-02T10:00:00Z'), sharedRun(RUN_B, '2025-01-03T10:00:00Z')];
  db.sharedContent[TOKEN] = content({
    kind: 'experiment',
    title,
    experiment: experimentFixture({
      id: 'e0000000-0000-4000-8000-0000000000aa',
      name: 'QoS 1 on LAN',
      runs: runs.map((run) => runBriefFixture({ id: run.id, status: run.status, created_at: run.created_at })),
    }),
    runs,
  });
  for (const run of runs) arrangeResults(run.id);
};

describe('shared link page', () => {
  it('shows a shared run read-only to a visitor who is not signed in, from the public API only', async () => {
    db.sharedContent[TOKEN] = content({});
    arrangeResults(RUN_A);

    const paths = await requestedPaths(async () => {
      renderApp(`/s/${TOKEN}`, { signedOut: true });
      expect(await screen.findByRole('heading', { level: 1, name: 'RTT on LAN' })).toBeInTheDocument();
      expect(await screen.findByRole('table', { name: /summary/i })).toBeInTheDocument();
      expect(await screen.findByText(`Round-trip times were measured (run ${RUN_A}).`)).toBeInTheDocument();
    });

    expect(screen.getByText(/a read-only view shared on/i)).toBeInTheDocument();
    // Nothing of the workspace: no navigation, no links back, no downloads, no sign-in detour.
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /back to experiment/i })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /compare with/i })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Exports' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Share' })).not.toBeInTheDocument();
    const resultPaths = paths.filter((path) => path !== '/api/catalogue/');
    expect(resultPaths.length).toBeGreaterThan(2);
    for (const path of resultPaths) expect(path.startsWith(`/api/public/shares/${TOKEN}/`)).toBe(true);
  });

  it('says plainly that a revoked or expired link is not valid', async () => {
    renderApp('/s/revoked-token', { signedOut: true });

    expect(await screen.findByRole('heading', { level: 1, name: 'This link is not valid' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(/revoked or have expired/);
  });

  it('shows a shared comparison without links to the runs’ pages', async () => {
    const runs = [sharedRun(RUN_A, '2025-01-02T10:00:00Z'), sharedRun(RUN_B, '2025-01-03T10:00:00Z')];
    db.sharedContent[TOKEN] = content({ kind: 'comparison', title: '', runs });
    for (const run of runs) arrangeResults(run.id);
    const comparison: RunComparison = {
      runs: runs.map((run) => ({
        run_id: run.id,
        experiment_id: run.experiment.id,
        experiment_name: run.experiment.name,
        label: `${run.experiment.name} · repeat 1`,
        repeat: 1,
        treatment: { security: run.id === RUN_A ? 'none' : 'aes-128-cbc' },
        conditions: { qos: 1 },
        statistics: runStatisticsFixture(run.id, {
          all_devices: roundTripStatisticsFixture({ device_id: null, device_name: 'All devices' }),
        }),
      })),
      pairs: [],
      unmatched: [],
      bootstrap: { resamples: 2000, draw_max: 20000, seed: 7 },
    };
    db.comparison = comparison;

    renderApp(`/s/${TOKEN}`, { signedOut: true });

    expect(await screen.findByRole('heading', { level: 1, name: 'Shared comparison' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Statistics side by side' });
    expect(within(table).getAllByRole('columnheader')).toHaveLength(3);
    expect(within(table).queryByRole('link')).not.toBeInTheDocument();
  });

  it('shows a shared experiment’s design and lets the visitor pick one of its runs', async () => {
    shareExperiment('');

    const { user } = renderApp(`/s/${TOKEN}`, { signedOut: true });

    expect(await screen.findByRole('heading', { level: 1, name: 'Shared experiment' })).toBeInTheDocument();
    expect(screen.getByText('Payload security')).toBeInTheDocument();
    // The latest completed run is shown first.
    expect(await screen.findByText(`Round-trip times were measured (run ${RUN_B}).`)).toBeInTheDocument();
    const [first] = screen.getAllByRole('button', { name: /^Run of/ });
    await user.click(first!);
    expect(await screen.findByText(`Round-trip times were measured (run ${RUN_A}).`)).toBeInTheDocument();
    expect(first).toHaveAttribute('aria-current', 'true');
  });

  it('should name an external target by the neutral label the link’s API gives, and no address', async () => {
    shareExperiment('');
    const shared = db.sharedContent[TOKEN]!;
    db.sharedContent[TOKEN] = {
      ...shared,
      experiment: { ...shared.experiment!, broker_url: 'external MQTT broker', mqttsn_gateway: '' },
    };

    renderApp(`/s/${TOKEN}`, { signedOut: true });

    const design = await screen.findByRole('region', { name: 'Design' });
    expect(within(design).getByText('External targets').nextElementSibling).toHaveTextContent(
      /^external MQTT broker$/,
    );
  });

  it('should list no external targets for a design on the platform’s own broker', async () => {
    shareExperiment('');

    renderApp(`/s/${TOKEN}`, { signedOut: true });

    const design = await screen.findByRole('region', { name: 'Design' });
    expect(within(design).queryByText('External targets')).not.toBeInTheDocument();
  });

  it('shows a shared experiment’s results figure, table and methods read-only from the link’s API', async () => {
    shareExperiment('AES on LAN');
    const cell = (security: string, runId: string, median: number): ExperimentResults['cells'][number] => ({
      key: security,
      label: security,
      parameters: { security },
      runs: [{ run_id: runId, repeat: 1, messages: 100, lost: 0, mean_ms: median, median_ms: median }],
      other_runs: {},
      interval_level: 'messages',
      messages: 100,
      lost: 0,
      mean_ms: median,
      mean_ci_ms: [median - 0.1, median + 0.1],
      median_ms: median,
      median_ci_ms: [median - 0.1, median + 0.1],
      ci_clipped: false,
      metrics: [{ name: 'median_ms', unit: 'ms', value: median, ci: [median - 0.1, median + 0.1] }],
    });
    db.sharedResults[TOKEN] = {
      experiment_id: 'e0000000-0000-4000-8000-0000000000aa',
      kind: 'messaging',
      confidence: 0.95,
      baseline: null,
      quantity: 'round-trip time',
      cells: [cell('none', RUN_A, 1.5), cell('aes-128-cbc', RUN_B, 1.8)],
      overheads: [],
      methods: 'Round-trip times of 2 parameter combinations were measured.',
    };

    const paths = await requestedPaths(async () => {
      renderApp(`/s/${TOKEN}`, { signedOut: true });
      expect(await screen.findByRole('heading', { level: 2, name: 'Results of the experiment' })).toBeInTheDocument();
      const table = await screen.findByRole('table', { name: 'Cells of this experiment' });
      expect(within(table).getAllByRole('row').slice(1).map((row) => row.firstChild?.textContent)).toEqual([
        'none',
        'aes-128-cbc',
      ]);
    });

    expect(screen.getByRole('region', { name: 'Methods' })).toHaveTextContent('2 parameter combinations');
    expect(paths).toContain(`/api/public/shares/${TOKEN}/results/`);
    expect(paths.some((path) => path.startsWith('/api/experiments/'))).toBe(false);
    // Read-only: no table downloads (they need a session), but the figure is drawn.
    expect(screen.queryByRole('link', { name: 'CSV' })).not.toBeInTheDocument();
    expect(plotlyFigure).toHaveBeenCalled();
  });
});
