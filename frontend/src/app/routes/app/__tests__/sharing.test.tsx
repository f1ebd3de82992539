import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { expiryFromDays } from '@/features/sharing/components/share-panel';
import {
  db,
  experimentFixture,
  runDistributionFixture,
  runFixture,
  runStatisticsFixture,
} from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { Run, ShareInput } from '@/types/api';

// The seam: Plotly cannot draw in jsdom (see run.test.tsx).
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const RUN_ID = 'r0000000-0000-4000-8000-000000000001';
const EXPERIMENT_ID = 'e0000000-0000-4000-8000-000000000001';

const run = (status: Run['status']): Run => runFixture({
  id: RUN_ID,
  experiment: { id: EXPERIMENT_ID, name: 'QoS 1 baseline' },
  kind: 'messaging',
  status,
  error: '',
  spec: { protocol: 'mqtt', qos: 1, security: 'none', payload_size: 66, message_count: 100 },
  created_at: '2025-01-02T10:00:00Z',
  started_at: '2025-01-02T10:00:01Z',
  finished_at: status === 'done' ? '2025-01-02T10:01:00Z' : null,
  devices: [],
  summary: [],
  bench_summary: [],
});

const arrangeCompletedRun = () => {
  db.runs.push(run('done'));
  db.statistics[RUN_ID] = runStatisticsFixture(RUN_ID);
  db.distributions[RUN_ID] = runDistributionFixture(RUN_ID);
  db.methods[RUN_ID] = { run_id: RUN_ID, text: 'Methods.' };
};

describe('sharing from the signed-in pages', () => {
  it('creates a link to a completed run with an expiry, shows it to copy, and revokes it', async () => {
    arrangeCompletedRun();
    const posted: ShareInput[] = [];
    server.events.on('request:start', ({ request }) => {
      if (request.method === 'POST' && new URL(request.url).pathname === '/api/shares/') {
        void request
          .clone()
          .json()
          .then((body) => posted.push(body as ShareInput));
      }
    });

    const { user } = renderApp(`/runs/${RUN_ID}`);
    const panel = await screen.findByRole('region', { name: 'Share' });
    await user.type(within(panel).getByLabelText('Title (optional)'), 'For reviewers');
    await user.selectOptions(within(panel).getByLabelText('Expires'), '7');
    const before = Date.now();
    await user.click(within(panel).getByRole('button', { name: 'Create link' }));

    const link = await within(panel).findByRole('textbox', { name: 'Link: For reviewers' });
    expect(link).toHaveValue(`${window.location.origin}${db.shares[0]!.path}`);
    expect(posted).toHaveLength(1);
    const [body] = posted;
    expect(body).toMatchObject({ kind: 'run', run: RUN_ID, title: 'For reviewers' });
    const expires = Date.parse(body!.expires_at!);
    expect(expires).toBeGreaterThanOrEqual(Date.parse(expiryFromDays(7, before)!));
    expect(expires).toBeLessThanOrEqual(Date.parse(expiryFromDays(7)!));
    expect(within(panel).getByText(/· Expires /)).toBeInTheDocument();

    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue();
    await user.click(within(panel).getByRole('button', { name: 'Copy link: For reviewers' }));
    expect(writeText).toHaveBeenCalledWith(`${window.location.origin}${db.shares[0]!.path}`);
    expect(await within(panel).findByText('Copied.')).toBeInTheDocument();

    await user.click(within(panel).getByRole('button', { name: 'Revoke link: For reviewers' }));
    expect(await within(panel).findByText('(Revoked)')).toBeInTheDocument();
    expect(within(panel).queryByRole('textbox', { name: 'Link: For reviewers' })).not.toBeInTheDocument();
    expect(db.shares[0]!.state).toBe('revoked');
  });

  it('offers no sharing for a run still under way', async () => {
    db.runs.push(run('running'));
    renderApp(`/runs/${RUN_ID}`);
    expect(await screen.findByRole('heading', { name: /Run: QoS 1 baseline/ })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Share' })).not.toBeInTheDocument();
  });

  it('shows why the server refused to share, in words', async () => {
    arrangeCompletedRun();
    server.use(
      http.post('/api/shares/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { run: ['Only a completed run can be shared (this one is failed): share it when it has finished.'] },
        }),
      ),
    );
    const { user } = renderApp(`/runs/${RUN_ID}`);
    const panel = await screen.findByRole('region', { name: 'Share' });
    await user.click(within(panel).getByRole('button', { name: 'Create link' }));
    expect(await within(panel).findByRole('alert')).toHaveTextContent(
      'The link could not be created. Only a completed run can be shared (this one is failed)',
    );
  });

  it('shares an experiment with all its runs from its page', async () => {
    db.experiments.push(experimentFixture({ id: EXPERIMENT_ID }));
    const { user } = renderApp(`/experiments/${EXPERIMENT_ID}`);
    const panel = await screen.findByRole('region', { name: 'Share' });
    expect(panel).toHaveTextContent('this experiment and all its runs');
    await user.click(within(panel).getByRole('button', { name: 'Create link' }));
    expect(await within(panel).findByRole('textbox', { name: 'Link: Untitled link' })).toBeInTheDocument();
    expect(db.shares[0]).toMatchObject({ kind: 'experiment', experiment_id: EXPERIMENT_ID });
  });

  it('lists only the links of the very runs a comparison shows', async () => {
    const other = 'r0000000-0000-4000-8000-000000000002';
    db.shares.push(
      { ...shareOf('comparison', [RUN_ID, other]), id: 's1', title: 'These two' },
      { ...shareOf('comparison', [RUN_ID, 'r0000000-0000-4000-8000-000000000003']), id: 's2', title: 'Other pair' },
      { ...shareOf('run', []), id: 's3', title: 'The run alone', run_id: RUN_ID },
    );
    server.use(http.get('/api/compare/', () => HttpResponse.json(null, { status: 404 })));
    renderApp(`/compare?run=${RUN_ID}&run=${other}`);
    const panel = await screen.findByRole('region', { name: 'Share' });
    expect(await within(panel).findByText('These two')).toBeInTheDocument();
    expect(within(panel).queryByText('Other pair')).not.toBeInTheDocument();
    expect(within(panel).queryByText('The run alone')).not.toBeInTheDocument();
  });
});

function shareOf(kind: ShareInput['kind'], runIds: string[]) {
  return {
    kind,
    title: '',
    path: '/s/abc',
    run_id: null,
    experiment_id: null,
    run_ids: runIds,
    state: 'active' as const,
    created_at: '2025-01-06T10:00:00Z',
    created_by: 'alice',
    expires_at: null,
    revoked_at: null,
    views: 2,
    last_viewed_at: null,
  };
}
