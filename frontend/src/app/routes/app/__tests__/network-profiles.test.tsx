import { http } from 'msw';
import { describe, expect, it, onTestFinished } from 'vitest';

import { db, deviceFixture, networkCatalogueFixture, networkProfileFixture } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, waitFor, within } from '@/testing/test-utils';

const OWN_ID = 'c0000000-0000-4000-8000-000000000001';
const SPLIT_ID = 'c0000000-0000-4000-8000-000000000002';

/** The catalogue slice, a profile of ours shaping both directions alike and one shaping each on its own. */
const seed = () => {
  db.networkProfiles.push(
    ...networkCatalogueFixture(),
    networkProfileFixture({
      id: OWN_ID,
      name: 'Poor 3G, bursty loss',
      spec: { both: { rate_kbit: 115, delay_ms: 122.6, jitter_ms: 40.6, loss_pct: 2 } },
    }),
    networkProfileFixture({
      id: SPLIT_ID,
      name: 'Asymmetric DSL',
      spec: { egress: { rate_kbit: 1000, delay_ms: 20 }, ingress: { rate_kbit: 16000, delay_ms: 10, loss_gemodel: { p_pct: 2, r_pct: 30 } } },
    }),
  );
};

/** Every list request's query, as the server saw it. */
const recordListQueries = () => {
  const queries: string[] = [];
  const record = ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    if (url.pathname === '/api/network-profiles/') queries.push(url.search);
  };
  server.events.on('request:start', record);
  onTestFinished(() => void server.events.removeListener('request:start', record));
  return queries;
};

const rowNames = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getByRole('rowheader').textContent);

const cellsOf = (table: HTMLElement, name: string) =>
  within(within(table).getByRole('row', { name: new RegExp(`^${name}`) }))
    .getAllByRole('cell')
    .map((cell) => cell.textContent);

describe('Network profiles page', () => {
  it('should open from the main navigation and list ours first, then the catalogue, each with its figures', async () => {
    seed();
    const { user } = renderApp('/experiments');
    await user.click(await screen.findByRole('link', { name: 'Network' }));

    expect(await screen.findByRole('heading', { name: 'Network profiles', level: 1 })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Network profiles' });
    expect(rowNames(table)).toEqual([
      'Asymmetric DSL',
      'Poor 3G, bursty loss',
      'SRUP 1: LAN Ethernet (no shaping)read-only',
      'SRUP 5: Poor-strength 3Gread-only',
      'TIM.bad.3G.no_roamingread-only',
    ]);
    // Kind, direction, delay, jitter + distribution, rate, loss.
    expect(cellsOf(table, 'Poor 3G')).toEqual(['Yours', 'both', '122.6 ms', '40.6 ms, normal', '115 kbit/s', '2 %']);
    expect(cellsOf(table, 'Asymmetric DSL')).toEqual([
      'Yours',
      'egressingress',
      '20 ms10 ms',
      '——',
      '1000 kbit/s16000 kbit/s',
      '—Gilbert-Elliott (p 2 %, r 30 %): ≈ 6.25 %',
    ]);
    expect(cellsOf(table, 'SRUP 1')).toEqual(['SRUP condition (built-in)', 'not shaped', '—', '—', '—', '—']);
    expect(cellsOf(table, 'TIM.bad')).toEqual([
      'Measured table (built-in)',
      'egress',
      '122.65 ms',
      '40.36 ms, measured table',
      'unlimited',
      '—',
    ]);
    expect(within(table).getByRole('link', { name: 'SRUP 5: Poor-strength 3G' })).toHaveAttribute(
      'href',
      '/network-profiles/c1000000-0000-4000-8000-000000000005',
    );
  });

  it('should filter by kind and search by name on the server, and keep both in the URL', async () => {
    seed();
    const queries = recordListQueries();
    const { user, router } = renderApp('/network-profiles');
    const table = await screen.findByRole('table', { name: 'Network profiles' });

    await user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'SRUP condition (built-in)');
    await waitFor(() =>
      expect(rowNames(table)).toEqual(['SRUP 1: LAN Ethernet (no shaping)read-only', 'SRUP 5: Poor-strength 3Gread-only']),
    );

    await user.type(screen.getByRole('searchbox', { name: 'Search by name' }), 'poor');
    await waitFor(() => expect(rowNames(table)).toEqual(['SRUP 5: Poor-strength 3Gread-only']));
    expect(queries).toContain('?kind=builtin_condition&search=poor');
    expect(router.state.location.search).toBe('?kind=builtin_condition&search=poor');

    await user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'Yours');
    await waitFor(() => expect(rowNames(table)).toEqual(['Poor 3G, bursty loss']));
    await user.type(screen.getByRole('searchbox', { name: 'Search by name' }), ' 5G');
    expect(await screen.findByText('No profile matches these filters.')).toBeInTheDocument();

    // The main navigation's link leads to the whole catalogue again, search box included.
    await user.click(screen.getByRole('link', { name: 'Network' }));
    expect(await screen.findByRole('table', { name: 'Network profiles' })).toBeInTheDocument();
    expect(screen.getByRole('searchbox', { name: 'Search by name' })).toHaveValue('');
    expect(screen.getByRole('combobox', { name: 'Kind' })).toHaveDisplayValue('All kinds');
    expect(rowNames(screen.getByRole('table', { name: 'Network profiles' }))).toHaveLength(5);
  });

  it('should start from the filters in the URL', async () => {
    seed();
    renderApp('/network-profiles?kind=measured_table');
    const table = await screen.findByRole('table', { name: 'Network profiles' });
    expect(rowNames(table)).toEqual(['TIM.bad.3G.no_roamingread-only']);
    expect(screen.getByRole('combobox', { name: 'Kind' })).toHaveDisplayValue('Measured table (built-in)');
  });

  it('should say so when there are no profiles at all, and show the server\'s message when the list fails', async () => {
    const { unmount } = renderApp('/network-profiles');
    expect(await screen.findByText(/No network profiles yet/)).toBeInTheDocument();
    unmount();

    server.use(
      http.get('/api/network-profiles/', () => errorResponse(500, 'server_error', 'The database is not reachable.')),
    );
    renderApp('/network-profiles');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The profiles could not be loaded. The database is not reachable.',
    );
  });

  it('should link to the form for a new profile', async () => {
    const { user } = renderApp('/network-profiles');
    await user.click(await screen.findByRole('link', { name: 'New profile' }));
    expect(await screen.findByRole('heading', { name: 'New network profile' })).toBeInTheDocument();
  });
});

describe('Network profiles page, when profiles cannot be enforced', () => {
  const unable = { network_emulation: { userspace: { available: false, reason: 'needs root (network namespaces and TUN devices)' }, netem: { available: false, reason: 'needs root (tc qdisc)' } } };
  const able = { network_emulation: { userspace: { available: true, reason: 'root, /dev/net/tun and ip netns present' } } };

  it('should say plainly that no device can enforce them, and why', async () => {
    seed();
    db.devices.push(deviceFixture({ facts: { ...deviceFixture().facts, ...unable } }));
    renderApp('/network-profiles');

    const notice = await screen.findByRole('status');
    expect(notice).toHaveTextContent('Network profiles cannot be enforced here.');
    expect(notice).toHaveTextContent('pi-lab-1: needs root (network namespaces and TUN devices); needs root (tc qdisc)');
    expect(notice).toHaveTextContent('never run unshaped');
  });

  it('should name the devices that cannot when others can', async () => {
    seed();
    db.devices.push(
      deviceFixture({ facts: { ...deviceFixture().facts, ...able } }),
      deviceFixture({ id: '5d1c0d9e-0000-4000-8000-000000000002', name: 'pi-user', facts: { ...unable } }),
    );
    renderApp('/network-profiles');

    const notice = await screen.findByRole('status');
    expect(notice).toHaveTextContent('cannot be enforced on 1 of your 2 devices');
    expect(notice).toHaveTextContent('pi-user: needs root');
    expect(notice).not.toHaveTextContent('pi-lab-1');
  });

  it('should say nothing when every device can enforce them', async () => {
    seed();
    db.devices.push(deviceFixture({ facts: { ...deviceFixture().facts, ...able } }));
    renderApp('/network-profiles');

    await screen.findByRole('table', { name: 'Network profiles' });
    expect(screen.queryByText(/cannot be enforced/)).not.toBeInTheDocument();
  });
});
