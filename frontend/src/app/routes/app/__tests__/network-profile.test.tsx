import { http, HttpResponse } from 'msw';
import { describe, expect, it, onTestFinished, vi } from 'vitest';

import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import { db, delayFiguresFixture, networkCatalogueFixture, networkProfileFixture } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, waitFor, within } from '@/testing/test-utils';
import type { NetworkProfileUpdate } from '@/types/api';

// The seam: Plotly cannot draw in jsdom, so the one module that imports it is replaced
// by a stub that records what it was given (see run.test.tsx).
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const SRUP_5_ID = 'c1000000-0000-4000-8000-000000000005';
const TABLE_ID = 'c2000000-0000-4000-8000-000000000001';
const OWN_ID = 'c0000000-0000-4000-8000-000000000001';

const lastHistogram = () =>
  plotlyFigure.mock.calls
    .map(([props]) => props as PlotlyFigureProps)
    .filter((f) => f.data[0]?.type === 'bar')
    .at(-1);

/** The catalogue slice and one profile of ours, shaping each direction on its own. */
const seed = () => {
  db.networkProfiles.push(
    ...networkCatalogueFixture(),
    networkProfileFixture({
      id: OWN_ID,
      name: 'Lab uplink',
      description: 'Our lab’s slow uplink.',
      citation: 'Measured with iperf, 2025-01.',
      spec: { egress: { rate_kbit: 384, delay_ms: 20 }, ingress: { delay_ms: 10, loss_pct: 1 } },
    }),
  );
};

/** Every PATCH body the app sent (the fake backend answers as usual). */
const recordPatches = () => {
  const sent: NetworkProfileUpdate[] = [];
  const record = ({ request }: { request: Request }) => {
    if (request.method === 'PATCH') void request.clone().json().then((body) => sent.push(body as NetworkProfileUpdate));
  };
  server.events.on('request:start', record);
  onTestFinished(() => void server.events.removeListener('request:start', record));
  return sent;
};

const settingsOf = (table: HTMLElement, setting: string) =>
  within(within(table).getByRole('row', { name: new RegExp(`^${setting}`) }))
    .getAllByRole('cell')
    .map((cell) => cell.textContent);

describe('Network profile page', () => {
  it('should show a measured table: its spec, source, licence and the delivered delay with its histogram', async () => {
    seed();
    renderApp(`/network-profiles/${TABLE_ID}`);

    expect(await screen.findByRole('heading', { name: 'Network profile: TIM.bad.3G.no_roaming' })).toBeInTheDocument();
    expect(screen.getByText(/Read-only: a built-in profile/)).toBeInTheDocument();

    const settings = screen.getByRole('table', { name: 'Link settings per direction' });
    expect(within(settings).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Setting',
      'Egress (device → platform)',
      'Ingress (platform → device)',
    ]);
    expect(settingsOf(settings, 'Delay')).toEqual(['122.65 ms', '—']);
    expect(settingsOf(settings, 'Jitter')).toEqual(['40.36 ms', '—']);
    expect(settingsOf(settings, 'Distribution')).toEqual(['measured table', '—']);
    expect(settingsOf(settings, 'Table')).toEqual(['TIM.bad.3G.no_roaming', '—']);
    expect(settingsOf(settings, 'Rate')).toEqual(['unlimited', 'not shaped']);

    const source = screen.getByRole('region', { name: 'Source' });
    expect(source).toHaveTextContent('mobile-latency-emulator by Martino Trevisan (GPL-3.0), CNSM 2019.');
    expect(source).toHaveTextContent(/Licence: the delay table is GPL-3.0 data of mobile-latency-emulator/);
    expect(within(source).getByRole('link', { name: 'mobile-latency-emulator' })).toHaveAttribute(
      'href',
      'https://github.com/marty90/mobile-latency-emulator',
    );

    // The delivered figures, not µ/σ as given (the table is clipped at µ ± 4σ).
    const delay = screen.getByRole('region', { name: 'Delay, Egress (device → platform)' });
    expect(within(delay).getByText('Mean').nextElementSibling).toHaveTextContent('121.7 ms');
    expect(within(delay).getByText('σ').nextElementSibling).toHaveTextContent('31.8 ms');
    expect(within(delay).getByText('As given (µ / σ)').nextElementSibling).toHaveTextContent('122.6 ms / 40.4 ms');
    expect(within(delay).getByText(/clipped at µ ± 4σ/)).toBeInTheDocument();

    // The histogram: the server's 40 bins, drawn as bars at their centres.
    expect(await within(delay).findByRole('region', { name: 'Delay histogram: Egress (device → platform)' })).toBeInTheDocument();
    const { edges_ms: edges, counts } = delayFiguresFixture();
    // The chart is loaded lazily: wait for its draw rather than the region around it.
    const histogramBars = () => lastHistogram()?.data[0] as { x: number[]; y: number[]; width: number[] } | undefined;
    await waitFor(() => expect(histogramBars()?.y).toEqual(counts));
    const bars = histogramBars();
    expect(bars?.x).toHaveLength(40);
    expect(bars?.x[0]).toBeCloseTo(((edges[0] ?? 0) + (edges[1] ?? 0)) / 2);
    expect(lastHistogram()?.layout.xaxis?.title?.text).toBe('Delay (ms)');
  });

  it('should offer a built-in no edit form and no delete, only a copy', async () => {
    seed();
    renderApp(`/network-profiles/${SRUP_5_ID}`);

    expect(await screen.findByRole('heading', { name: 'Network profile: SRUP 5: Poor-strength 3G' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy to my workspace' })).toBeInTheDocument();
    expect(screen.queryByRole('form')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete profile' })).not.toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Source' })).toHaveTextContent(/Poulter & Cox, IoT 2021 \(CC BY 4\.0\)/);
  });

  it('should copy a built-in into the workspace and open the copy, which can be changed', async () => {
    seed();
    const copies: unknown[] = [];
    const record = ({ request }: { request: Request }) => {
      if (request.url.endsWith('/copy/')) void request.clone().json().then((body) => copies.push(body));
    };
    server.events.on('request:start', record);
    onTestFinished(() => void server.events.removeListener('request:start', record));
    const { user, router } = renderApp(`/network-profiles/${SRUP_5_ID}`);

    await user.click(await screen.findByRole('button', { name: 'Copy to my workspace' }));

    expect(
      await screen.findByRole('heading', { name: 'Network profile: SRUP 5: Poor-strength 3G (copy)' }),
    ).toBeInTheDocument();
    expect(copies).toEqual([{}]);
    const copy = db.networkProfiles.find((p) => p.name === 'SRUP 5: Poor-strength 3G (copy)');
    expect(copy).toMatchObject({ kind: 'user', builtin: false, spec: networkCatalogueFixture()[1]?.spec });
    expect(router.state.location.pathname).toBe(`/network-profiles/${copy?.id}`);
    expect(screen.getByText('Yours')).toBeInTheDocument();
    expect(screen.getByRole('form', { name: 'Change the profile' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete profile' })).toBeInTheDocument();
  });

  it('should fill the edit form from the profile and send only what changed in the PATCH', async () => {
    seed();
    const sent = recordPatches();
    const { user } = renderApp(`/network-profiles/${OWN_ID}`);

    const form = await screen.findByRole('form', { name: 'Change the profile' });
    expect(within(form).getByRole('radio', { name: 'Each direction on its own' })).toBeChecked();
    const egress = within(form).getByRole('group', { name: 'Egress (device → platform)' });
    const ingress = within(form).getByRole('group', { name: 'Ingress (platform → device)' });
    expect(within(egress).getByRole('spinbutton', { name: 'Rate (kbit/s)' })).toHaveValue(384);
    expect(within(egress).getByRole('spinbutton', { name: 'Queue limit (packets)' })).toHaveValue(1000);
    expect(within(ingress).getByRole('spinbutton', { name: 'Loss (%)' })).toHaveValue(1);

    const delay = within(ingress).getByRole('spinbutton', { name: 'Delay (ms)' });
    await user.clear(delay);
    await user.type(delay, '35');
    await user.clear(within(form).getByRole('textbox', { name: 'Name' }));
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'Lab uplink, slower');
    await user.click(within(form).getByRole('button', { name: 'Save changes' }));

    expect(await within(form).findByText('Saved.')).toBeInTheDocument();
    expect(sent).toEqual([
      {
        name: 'Lab uplink, slower',
        spec: { egress: { rate_kbit: 384, delay_ms: 20 }, ingress: { delay_ms: 35, loss_pct: 1 } },
      },
    ]);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Network profile: Lab uplink, slower');
    const settings = screen.getByRole('table', { name: 'Link settings per direction' });
    expect(settingsOf(settings, 'Delay')).toEqual(['20 ms', '35 ms']);
  });

  it('should show a spec error from the server next to the field it names', async () => {
    seed();
    server.use(
      http.patch('/api/network-profiles/:id/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { spec: ['ingress.reorder_pct: set without delay_ms; allowed: reorder with delay'] },
        }),
      ),
    );
    const sent = recordPatches();
    const { user } = renderApp(`/network-profiles/${OWN_ID}`);

    const form = await screen.findByRole('form', { name: 'Change the profile' });
    const ingress = within(form).getByRole('group', { name: 'Ingress (platform → device)' });
    await user.clear(within(ingress).getByRole('spinbutton', { name: 'Delay (ms)' }));
    const reorder = within(ingress).getByRole('spinbutton', { name: 'Reordering (%)' });
    await user.clear(reorder);
    await user.type(reorder, '5');
    await user.click(within(form).getByRole('button', { name: 'Save changes' }));

    expect(await within(form).findByRole('alert')).toHaveTextContent(
      'Some fields are invalid: correct them and send again.',
    );
    expect(reorder).toBeInvalid();
    expect(reorder).toHaveAccessibleDescription(expect.stringContaining('set without delay_ms; allowed: reorder with delay'));
    expect(sent).toEqual([{ spec: { egress: { rate_kbit: 384, delay_ms: 20 }, ingress: { loss_pct: 1, reorder_pct: 5 } } }]);
    // Nothing was saved.
    expect(db.networkProfiles.find((p) => p.id === OWN_ID)?.spec).toEqual({
      egress: { rate_kbit: 384, delay_ms: 20 },
      ingress: { delay_ms: 10, loss_pct: 1 },
    });
  });

  it('should show a spec error no field matches in an alert, in the server\'s words', async () => {
    seed();
    const message = 'egress.loss_gemodel.p_pct: missing; allowed: a number from 0 to 100 (percent)';
    server.use(
      http.patch('/api/network-profiles/:id/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
          fields: { spec: [message] },
        }),
      ),
    );
    const { user } = renderApp(`/network-profiles/${OWN_ID}`);
    const form = await screen.findByRole('form', { name: 'Change the profile' });
    await user.type(within(form).getByRole('textbox', { name: 'Description' }), ' Again.');
    await user.click(within(form).getByRole('button', { name: 'Save changes' }));

    expect(await within(form).findByRole('alert')).toHaveTextContent(
      `Some fields are invalid: correct them and send again. ${message}`,
    );
  });

  it('should check the figures before sending: a loss above 100 % is not sent', async () => {
    seed();
    const sent = recordPatches();
    const { user } = renderApp(`/network-profiles/${OWN_ID}`);
    const form = await screen.findByRole('form', { name: 'Change the profile' });
    const loss = within(within(form).getByRole('group', { name: 'Ingress (platform → device)' })).getByRole(
      'spinbutton',
      { name: 'Loss (%)' },
    );
    await user.clear(loss);
    await user.type(loss, '120');
    await user.click(within(form).getByRole('button', { name: 'Save changes' }));

    expect(await within(form).findByRole('alert')).toHaveTextContent('Please correct the highlighted fields.');
    expect(loss).toHaveAccessibleDescription('Loss must be at most 100 %.');
    expect(sent).toEqual([]);
  });

  it('should delete our profile after a second click and go back to the list', async () => {
    seed();
    const { user, router } = renderApp(`/network-profiles/${OWN_ID}`);
    await user.click(await screen.findByRole('button', { name: 'Delete profile' }));
    await user.click(screen.getByRole('button', { name: 'Yes, delete' }));

    expect(await screen.findByRole('heading', { name: 'Network profiles', level: 1 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/network-profiles');
    expect(db.networkProfiles.some((p) => p.id === OWN_ID)).toBe(false);
  });

  it('should say why when the server refuses to change a built-in', async () => {
    seed();
    // A built-in reached the form somehow (an old page): the server's 403 is shown as it is.
    server.use(
      http.get('/api/network-profiles/:id/', () =>
        HttpResponse.json({ ...networkCatalogueFixture()[1], id: SRUP_5_ID, builtin: false, kind: 'user' }),
      ),
    );
    const { user } = renderApp(`/network-profiles/${SRUP_5_ID}`);
    const form = await screen.findByRole('form', { name: 'Change the profile' });
    await user.type(within(form).getByRole('textbox', { name: 'Description' }), ' Mine now.');
    await user.click(within(form).getByRole('button', { name: 'Save changes' }));

    expect(await within(form).findByRole('alert')).toHaveTextContent(
      /“SRUP 5: Poor-strength 3G” is a built-in profile and cannot be changed or deleted/,
    );
  });

  it('should show the not-found page for a profile that is not there', async () => {
    renderApp('/network-profiles/c9999999-0000-4000-8000-000000000000');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the experiments' })).toBeInTheDocument();
  });
});
