import { describe, expect, it, vi } from 'vitest';

import {
  db,
  deviceFixture,
  networkProofFixture,
  runDistributionFixture,
  runFixture,
  runStatisticsFixture,
} from '@/testing/mocks/db';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { Run, RunDevice, SharedContent } from '@/types/api';

// The seam: Plotly cannot draw in jsdom (see run.test.tsx).
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const RUN_ID = 'r0000000-0000-4000-8000-000000000001';
const PROFILE_ID = 'c1000000-0000-4000-8000-000000000005';
const [pi1, pi2] = [deviceFixture(), deviceFixture({ id: '5d1c0d9e-0000-4000-8000-000000000002', name: 'pi-lab-2' })];

const device = (d: { id: string; name: string }, network: RunDevice['network']): RunDevice => ({
  device_id: d.id,
  name: d.name,
  status: 'done',
  sent: 100,
  received: 100,
  total: 100,
  records_ingested: 100,
  error: '',
  facts: {},
  network,
  clock: null,
  resources: null,
});

/** A completed run under SRUP 5, its profile frozen in its spec (experiments/services/designs.py). */
const shapedRun = (devices: RunDevice[], overrides: Partial<Run> = {}): Run => runFixture({
  id: RUN_ID,
  experiment: { id: 'e0000000-0000-4000-8000-000000000001', name: 'Poor 3G' },
  kind: 'messaging',
  status: 'done',
  error: '',
  spec: {
    protocol: 'mqtt',
    qos: 1,
    security: 'none',
    payload_size: 66,
    message_count: 100,
    network_profile: {
      id: PROFILE_ID,
      name: 'SRUP 5: Poor-strength 3G',
      spec: { ingress: { delay_ms: 122.6, jitter_ms: 40.4, distribution: 'table', table: 'TIM.bad.3G.no_roaming' } },
    },
  },
  created_at: '2025-01-02T10:00:00Z',
  started_at: '2025-01-02T10:00:01Z',
  finished_at: '2025-01-02T10:01:00Z',
  devices,
  summary: [],
  bench_summary: [],
  ...overrides,
});

const arrangeResults = (runId: string) => {
  db.statistics[runId] = runStatisticsFixture(runId);
  db.distributions[runId] = runDistributionFixture(runId);
  db.methods[runId] = { run_id: runId, text: 'Round-trip times were measured.' };
};

const networkPanel = async () => screen.findByRole('region', { name: 'Network conditions' });

/** The label → value pairs of a device's figures. */
const figuresOf = (region: HTMLElement) =>
  Object.fromEntries(
    within(region)
      .getAllByRole('term')
      .map((term) => [term.textContent, term.nextElementSibling?.textContent]),
  );

describe('Run page under a network profile', () => {
  it('should show the profile and, per device, who enforced it, the verification figures and the counters', async () => {
    db.runs.push(
      shapedRun([
        device(pi1, networkProofFixture()),
        device(
          pi2,
          networkProofFixture({
            verification: {
              ok: true,
              reason: 'median round trip 125.02 ms, expected 120.00 ± 12.00 ms',
              expected_median_ms: 120,
              measured_median_ms: 125.02,
              measured_p95_ms: 201,
              tolerance_ms: 12,
              sent: 50,
              received: 48,
              spacing_ms: 20,
            },
          }),
        ),
      ]),
    );
    arrangeResults(RUN_ID);
    renderApp(`/runs/${RUN_ID}`);

    const panel = await networkPanel();
    expect(within(panel).getByRole('link', { name: 'SRUP 5: Poor-strength 3G' })).toHaveAttribute(
      'href',
      `/network-profiles/${PROFILE_ID}`,
    );

    const first = within(panel).getByRole('region', { name: 'pi-lab-1' });
    expect(figuresOf(first)).toEqual({
      'Enforced by': 'userspace',
      Verification: 'Passed',
      'Expected median round trip': '120.00 ± 12.00 ms',
      'Measured round trip': 'median 121.30 ms, p95 180.25 ms',
      'Probes back': '50 of 50',
      Relay: 'adds about 34.0 µs per round trip (median hop up 20.0 µs, down 14.0 µs)',
    });
    const forwarder = within(first).getByRole('table', { name: 'Forwarder of pi-lab-1 (packets)' });
    const rows = within(forwarder)
      .getAllByRole('row')
      .map((row) => Array.from((row as HTMLTableRowElement).cells, (cell) => cell.textContent));
    expect(rows).toEqual([
      ['Direction', 'Forwarded', 'Dropped by loss', 'Dropped by queue'],
      ['Egress (device → platform)', '250', '0', '0'],
      ['Ingress (platform → device)', '247', '3', '0'],
    ]);

    const second = within(panel).getByRole('region', { name: 'pi-lab-2' });
    expect(figuresOf(second)).toMatchObject({
      'Measured round trip': 'median 125.02 ms, p95 201.00 ms',
      'Probes back': '48 of 50',
    });
  });

  it('should show the netem backend’s qdisc statistics for a device whose kernel enforced the profile', async () => {
    const { forwarder: _, ...userspace } = networkProofFixture();
    const netem = {
      ...userspace,
      backend: 'netem',
      netem: {
        ifb: 'isbi-r1234abcde',
        tc: [],
        readback: {},
        counters: {
          egress: { bytes: 16_250, packets: 250, drops: 0, overlimits: 0 },
          ingress: { bytes: 16_055, packets: 247, drops: 3, overlimits: 0 },
        },
      },
    };
    db.runs.push(shapedRun([device(pi1, netem)]));
    arrangeResults(RUN_ID);
    renderApp(`/runs/${RUN_ID}`);

    const first = within(await networkPanel()).getByRole('region', { name: 'pi-lab-1' });
    expect(figuresOf(first)).toMatchObject({ 'Enforced by': 'netem' });
    expect(within(first).queryByRole('table', { name: /Forwarder/ })).not.toBeInTheDocument();
    const table = within(first).getByRole('table', { name: /netem qdiscs of pi-lab-1/ });
    const rows = within(table)
      .getAllByRole('row')
      .map((row) => Array.from((row as HTMLTableRowElement).cells, (cell) => cell.textContent));
    expect(rows).toEqual([
      ['Direction', 'Packets sent', 'Bytes sent', 'Dropped'],
      ['Egress (device → platform)', '250', '16,250', '0'],
      ['Ingress (platform → device)', '247', '16,055', '3'],
    ]);
  });

  it('should say when a device of a completed run sent no proof of enforcement', async () => {
    db.runs.push(shapedRun([device(pi1, networkProofFixture()), device(pi2, null)]));
    arrangeResults(RUN_ID);
    renderApp(`/runs/${RUN_ID}`);

    const panel = await networkPanel();
    expect(within(panel).getByRole('region', { name: 'pi-lab-2' })).toHaveTextContent(
      'No proof of enforcement was received from this device.',
    );
    expect(within(panel).getByRole('region', { name: 'pi-lab-1' })).not.toHaveTextContent(/no proof/i);
  });

  it('should show a failed verification and tolerate a proof with missing or malformed figures', async () => {
    db.runs.push(
      shapedRun([
        device(pi1, {
          backend: 'userspace',
          future_field: { anything: true },
          verification: {
            ok: false,
            reason: 'only 12 of 50 probes came back',
            expected_median_ms: 120,
            measured_median_ms: null,
            tolerance_ms: 'twelve',
            sent: 50,
            received: 12,
          },
          forwarder: { ingress: { forwarded: 12 } },
        }),
      ]),
    );
    arrangeResults(RUN_ID);
    renderApp(`/runs/${RUN_ID}`);

    const region = within(await networkPanel()).getByRole('region', { name: 'pi-lab-1' });
    expect(figuresOf(region)).toEqual({
      'Enforced by': 'userspace',
      Verification: 'Failed: only 12 of 50 probes came back',
      'Expected median round trip': '120.00 ± — ms',
      'Measured round trip': 'median — ms, p95 — ms',
      'Probes back': '12 of 50',
    });
    const forwarder = within(region).getByRole('table', { name: 'Forwarder of pi-lab-1 (packets)' });
    expect(within(forwarder).getAllByRole('row')).toHaveLength(2);
    expect(within(forwarder).getByRole('row', { name: /Ingress/ })).toHaveTextContent('12——');
  });

  it('should show no network panel for a run without a profile', async () => {
    const run = shapedRun([device(pi1, null)]);
    const { network_profile: _profile, ...spec } = run.spec;
    db.runs.push({ ...run, spec });
    arrangeResults(RUN_ID);
    renderApp(`/runs/${RUN_ID}`);

    expect(await screen.findByRole('heading', { name: 'Run: Poor 3G' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Network conditions' })).not.toBeInTheDocument();
  });

  it('should show the profile as plain text on a shared page', async () => {
    const TOKEN = 'tok_network';
    const content: SharedContent = {
      kind: 'run',
      title: 'RTT on poor 3G',
      shared_at: '2025-01-06T10:00:00Z',
      expires_at: null,
      experiment: null,
      runs: [shapedRun([device(pi1, networkProofFixture())])],
    };
    db.sharedContent[TOKEN] = content;
    arrangeResults(RUN_ID);
    renderApp(`/s/${TOKEN}`, { signedOut: true });

    const panel = await networkPanel();
    expect(panel).toHaveTextContent('Profile: SRUP 5: Poor-strength 3G');
    expect(within(panel).queryByRole('link')).not.toBeInTheDocument();
    expect(figuresOf(within(panel).getByRole('region', { name: 'pi-lab-1' }))).toMatchObject({
      Verification: 'Passed',
      'Probes back': '50 of 50',
    });
  });
});
