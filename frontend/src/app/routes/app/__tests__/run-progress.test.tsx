import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { db, runFixture } from '@/testing/mocks/db';
import { setRunStatus } from '@/testing/mocks/handlers';
import { act, renderApp, screen, waitFor, within } from '@/testing/test-utils';
import type { Run, RunDevice } from '@/types/api';

// The run page's live progress: elapsed time and the estimate of the time left, under fake
// clocks. Only Date and the intervals are faked: the page's clock and its polls tick when the
// test says so, while MSW and Testing Library keep their real timeouts.

const RUN_ID = 'r0000000-0000-4000-8000-000000000001';
const STARTED_AT = '2025-01-02T10:00:00Z';
const secondsAfterStart = (seconds: number) => new Date(Date.parse(STARTED_AT) + seconds * 1000);

const part = (overrides: Partial<RunDevice>): RunDevice => ({
  device_id: '5d1c0d9e-0000-4000-8000-000000000001',
  name: 'pi-lab-1',
  status: 'running',
  sent: 0,
  received: 0,
  total: 100,
  records_ingested: 0,
  error: '',
  facts: {},
  network: null,
  clock: null,
  resources: null,
  ...overrides,
});

const runningRun = (devices: RunDevice[], overrides: Partial<Run> = {}): Run =>
  runFixture({
    id: RUN_ID,
    status: 'running',
    spec: { protocol: 'mqtt', qos: 1, security: 'none', payload_size: 66, message_count: 100 },
    started_at: STARTED_AT,
    devices,
    ...overrides,
  });

/** The value shown for a term of the progress panel ("Elapsed", "Time left"). */
const progressFigure = (term: string) =>
  within(screen.getByRole('region', { name: 'Progress' })).getByText(term).nextElementSibling;

/** Lets the page's one-second clock (and its poll of the run) tick once. */
const tick = () => act(() => vi.advanceTimersByTime(1000));

describe('Run page: elapsed time and estimate', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('should show the time since the run started, ticking each second, and the time left at its rate', async () => {
    vi.setSystemTime(secondsAfterStart(65));
    const run = runningRun([
      part({ sent: 40, received: 38 }),
      part({ device_id: '5d1c0d9e-0000-4000-8000-000000000002', name: 'pi-lab-2', sent: 10, received: 10 }),
    ]);
    db.runs.push(run);
    renderApp(`/runs/${RUN_ID}`);

    await screen.findByRole('region', { name: 'Progress' });
    expect(progressFigure('Elapsed')).toHaveTextContent('1 min 05 s');
    // 50 of 200 messages in 65 s: 150 more take 195 s.
    expect(progressFigure('Time left')).toHaveTextContent('about 3 min 15 s');

    await tick();
    expect(progressFigure('Elapsed')).toHaveTextContent('1 min 06 s');
    expect(progressFigure('Time left')).toHaveTextContent('about 3 min 18 s');

    // The next poll brings more progress: 120 of 200 in 67 s, so 80 more take 45 s.
    run.devices = run.devices.map((device) => ({ ...device, sent: 60 }));
    await tick();
    await waitFor(() => expect(progressFigure('Time left')).toHaveTextContent('about 45 s'));
    expect(progressFigure('Elapsed')).toHaveTextContent('1 min 07 s');
  });

  it('should say it is estimating until the first message is sent', async () => {
    vi.setSystemTime(secondsAfterStart(3));
    db.runs.push(runningRun([part({ sent: 0 })]));
    renderApp(`/runs/${RUN_ID}`);

    await screen.findByRole('region', { name: 'Progress' });
    expect(progressFigure('Elapsed')).toHaveTextContent('3 s');
    expect(progressFigure('Time left')).toHaveTextContent('estimating…');
  });

  it('should show no times while the run waits its turn', async () => {
    vi.setSystemTime(secondsAfterStart(3));
    db.runs.push(runningRun([part({ status: 'queued' })], { status: 'queued', started_at: null }));
    renderApp(`/runs/${RUN_ID}`);

    const progress = await screen.findByRole('region', { name: 'Progress' });
    expect(within(progress).getByRole('progressbar', { name: 'pi-lab-1 progress' })).toBeInTheDocument();
    expect(within(progress).queryByText('Elapsed')).not.toBeInTheDocument();
    expect(within(progress).queryByText('Time left')).not.toBeInTheDocument();
  });

  it('should stop the clock once the run has finished', async () => {
    vi.setSystemTime(secondsAfterStart(10));
    const run = runningRun([part({ sent: 50 })]);
    db.runs.push(run);
    renderApp(`/runs/${RUN_ID}`);

    await screen.findByRole('region', { name: 'Progress' });
    expect(progressFigure('Elapsed')).toHaveTextContent('10 s');

    setRunStatus(run, 'done');
    await tick();
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent('Status: done'));
    expect(screen.queryByRole('region', { name: 'Progress' })).not.toBeInTheDocument();
    expect(screen.queryByText('Elapsed')).not.toBeInTheDocument();
  });
});
