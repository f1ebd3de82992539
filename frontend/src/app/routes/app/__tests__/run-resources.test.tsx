import { describe, expect, it, vi } from 'vitest';

import {
  db,
  deviceFixture,
  runDistributionFixture,
  runFixture,
  runStatisticsFixture,
} from '@/testing/mocks/db';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { RunDevice, RunDeviceResources } from '@/types/api';

// The seam: Plotly cannot draw in jsdom (see run.test.tsx).
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const RUN_ID = 'r0000000-0000-4000-8000-0000000000e5';
const [pi1, pi2] = [deviceFixture(), deviceFixture({ id: '5d1c0d9e-0000-4000-8000-000000000002', name: 'pi-lab-2' })];

const device = (d: { id: string; name: string }, resources: RunDeviceResources | null): RunDevice => ({
  device_id: d.id,
  name: d.name,
  status: 'done',
  sent: 500,
  received: 500,
  total: 500,
  records_ingested: 500,
  error: '',
  facts: {},
  network: null,
  clock: null,
  resources,
});

/** The label → value pairs of a device's figures. */
const figuresOf = (region: HTMLElement) =>
  Object.fromEntries(
    within(region)
      .getAllByRole('term')
      .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
  );

describe('Run page: the agent’s resources', () => {
  it('should show each device’s CPU time, peak memory and bytes sent / received, or that they were not recorded', async () => {
    db.runs.push(
      runFixture({
        id: RUN_ID,
        kind: 'messaging',
        status: 'done',
        spec: { protocol: 'coap', security: 'aes-256-cbc', payload_size: 66, message_count: 500 },
        devices: [
          device(pi1, {
            window_ns: 64_000_000_000,
            cpu_user_ns: 1_250_000_000,
            cpu_system_ns: 350_000_000,
            peak_rss_kb: 40_960,
            peak_rss_scope: 'run',
            bytes_sent: 53_000,
            bytes_received: 50_500,
          }),
          device(pi2, null),
        ],
      }),
    );
    db.statistics[RUN_ID] = runStatisticsFixture(RUN_ID);
    db.distributions[RUN_ID] = runDistributionFixture(RUN_ID);
    db.methods[RUN_ID] = { run_id: RUN_ID, text: 'Round-trip times were measured.' };
    renderApp(`/runs/${RUN_ID}`);

    const panel = await screen.findByRole('region', { name: 'Agent resources' });
    expect(within(panel).getByText(/acknowledgements, protocol headers and TLS records/)).toBeInTheDocument();
    expect(figuresOf(within(panel).getByRole('region', { name: 'Resources of pi-lab-1' }))).toEqual({
      'Agent CPU time': '1.600 s (user 1.250 s, system 0.350 s; 2.5 % of 64.000 s)',
      'Peak memory': '40.0 MiB (during the run)',
      'Bytes sent / received': '53.0 kB / 50.5 kB (51.8 KiB / 49.3 KiB)',
    });
    expect(figuresOf(within(panel).getByRole('region', { name: 'Resources of pi-lab-2' }))).toEqual({
      'Agent CPU time': 'not recorded',
      'Peak memory': 'not recorded',
      'Bytes sent / received': 'not recorded',
    });
  });
});
