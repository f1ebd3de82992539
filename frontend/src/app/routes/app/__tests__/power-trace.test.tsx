import { http, HttpResponse } from 'msw';
import { describe, expect, it, onTestFinished, vi } from 'vitest';

import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import { db, monsoonDetection, parsedTraceFixture, powerTraceFixture } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { act, renderApp, screen, waitFor, within } from '@/testing/test-utils';
import type { PowerFigures, PowerPlot, PowerTrace } from '@/types/api';

// The seam: Plotly cannot draw in jsdom, so the one module that imports it is replaced
// by a stub that records what it was given.
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const TRACE_ID = 'a0000000-0000-4000-8000-000000000001';
const PLAIN_ID = 'a0000000-0000-4000-8000-000000000002';
const IDLE_ID = 'a0000000-0000-4000-8000-000000000003';

const figures = (): PlotlyFigureProps[] => plotlyFigure.mock.calls.map(([props]) => props as PlotlyFigureProps);
/** The power chart's latest figure: the one with a "Mean" line. */
const lastEnvelope = () => figures().filter((f) => f.data.some((trace) => trace.name === 'Mean')).at(-1);
const lastProjection = () =>
  figures()
    .filter((f) => f.layout.xaxis?.title?.text === 'Messages per minute')
    .at(-1);

/** GET /api/power-traces/:id/ that moves a parsing trace on to `next` after the first poll. */
const finishParsingWith = (next: Partial<PowerTrace>) => {
  let parsingPolls = 0;
  server.use(
    http.get('/api/power-traces/:id/', ({ params }) => {
      const trace = db.powerTraces.find((t) => t.id === params.id);
      if (!trace) return errorResponse(404, 'not_found', 'Not found.');
      if (trace.status === 'parsing' && parsingPolls++ >= 1) Object.assign(trace, next);
      return HttpResponse.json(trace);
    }),
  );
};

const plot: PowerPlot = {
  start_s: 0,
  end_s: 120,
  duration_s: 120,
  samples: 1_200_000,
  exact: false,
  t: [0.03, 60, 119.97],
  min_w: [1.2, 1.21, 1.3],
  max_w: [2.6, 1.4, 1.5],
  mean_w: [1.5, 1.3, 1.4],
  run_window: { start_s: 1.5, end_s: 31.5 },
};

const windowFigures: PowerFigures = {
  window: { start_s: 1.5, end_s: 31.5, duration_s: 30, samples: 150_000 },
  mean_w: 2.04,
  sample_mean_w: 2.1,
  median_w: 2.01,
  min_w: 1.8,
  max_w: 2.6,
  energy_j: 61.2,
  baseline: { source: 'none', power_w: 0 },
  net_mean_w: 2.04,
  net_energy_j: 61.2,
  messages: 250,
  energy_per_message_j: 0.2448,
  net_energy_per_message_j: 0.2448,
  charge_mah: 3.4,
  supply_voltage_v: 5,
  reference: null,
  battery: null,
  warnings: [],
};

/** A parsed run trace, a plain one to compare it with and a baseline, with their data. */
const seedParsed = () => {
  db.powerTraces.push(
    parsedTraceFixture({ id: TRACE_ID, name: 'srup run' }),
    parsedTraceFixture({ id: PLAIN_ID, name: 'plain run' }),
    parsedTraceFixture({ id: IDLE_ID, name: 'idle', kind: 'baseline', baseline_name: 'pi3 idle', run: null }),
  );
  db.powerPlots[TRACE_ID] = plot;
  db.powerFigures[TRACE_ID] = windowFigures;
};

const cellsOf = (table: HTMLElement, rowName: string) =>
  within(within(table).getByRole('row', { name: new RegExp(`^${rowName.replace(/[()]/g, '\\$&')}`) }))
    .getAllByRole('cell')
    .map((c) => c.textContent);

describe('Power trace page, before parsing', () => {
  it('should show what was detected, the file head and a form prefilled from the suggestion', async () => {
    db.powerTraces.push(powerTraceFixture({ id: TRACE_ID }));
    renderApp(`/power/${TRACE_ID}`);

    expect(await screen.findByRole('heading', { name: 'Power trace: pi3 srup run' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Status: uploaded');
    expect(
      screen.getByRole('heading', { name: 'Detected: Monsoon Power Monitor CSV — high confidence' }),
    ).toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'Detection notes' })).getByRole('listitem')).toHaveTextContent(
      'Monsoon writes seconds under the Time(ms) header; read as seconds.',
    );
    const preview = screen.getByRole('table', { name: 'File preview' });
    expect(within(preview).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Time(ms)', 'Main(mA)', 'Main Voltage(V)',
    ]);
    expect(within(preview).getAllByRole('row')[1]).toHaveTextContent('0.000212.34.2');

    const form = screen.getByRole('form', { name: 'Column mapping' });
    const format = within(form).getByRole('combobox', { name: 'Format' });
    expect(format).toHaveDisplayValue('Monsoon Power Monitor CSV (detected)');
    expect(within(format).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Monsoon Power Monitor CSV (detected)', 'Other CSV (map the columns)',
    ]);
    expect(within(form).getByRole('combobox', { name: 'Delimiter' })).toHaveDisplayValue('Comma (,)');
    expect(within(form).getByRole('spinbutton', { name: 'Lines to skip' })).toHaveValue(1);
    expect(within(form).getByRole('checkbox', { name: 'Decimal comma (1,5 for 1.5)' })).not.toBeChecked();
    expect(within(form).getByRole('radio', { name: 'A time column' })).toBeChecked();
    expect(within(form).getByRole('combobox', { name: 'Time column' })).toHaveDisplayValue('Time(ms)');
    expect(within(form).getByRole('combobox', { name: 'Time unit' })).toHaveDisplayValue('seconds (s)');
    expect(within(form).getByRole('combobox', { name: 'Voltage column' })).toHaveDisplayValue('Main Voltage(V)');
    expect(within(form).getByRole('combobox', { name: 'Voltage unit' })).toHaveDisplayValue('V');
    expect(within(form).getByRole('combobox', { name: 'Current column' })).toHaveDisplayValue('Main(mA)');
    expect(within(form).getByRole('combobox', { name: 'Current unit' })).toHaveDisplayValue('mA');
    expect(within(form).getByRole('combobox', { name: 'Power column' })).toHaveDisplayValue('Not in this file');
    expect(within(form).getByRole('spinbutton', { name: 'Supply voltage (V)' })).toHaveValue(null);
  });

  it('should send the confirmed spec, show parsing progress, then the parsed trace', async () => {
    db.powerTraces.push(powerTraceFixture({ id: TRACE_ID }));
    db.powerPlots[TRACE_ID] = plot;
    db.powerFigures[TRACE_ID] = windowFigures;
    let sent: unknown = null;
    server.use(
      http.post('/api/power-traces/:id/parse/', async ({ request }) => {
        sent = await request.json();
        const trace = db.powerTraces[0]!;
        Object.assign(trace, { status: 'parsing', progress: 0.4, spec: sent });
        return HttpResponse.json(trace, { status: 202 });
      }),
    );
    finishParsingWith({ ...parsedTraceFixture({ id: TRACE_ID }), name: 'pi3 srup run' });
    const { user } = renderApp(`/power/${TRACE_ID}`);

    await user.click(await screen.findByRole('button', { name: 'Parse' }));

    const bar = await screen.findByRole('progressbar', { name: 'Parsing progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '40');
    expect(screen.getByRole('status')).toHaveTextContent('Status: parsing');
    expect(screen.getByRole('button', { name: 'Parsing…' })).toBeDisabled();
    expect(sent).toEqual(monsoonDetection.spec);

    // The 1 s poll brings the parsed trace.
    expect(await screen.findByRole('region', { name: 'Power over time' }, { timeout: 3000 })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Status: parsed');
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Column mapping' })).not.toBeInTheDocument();
  });

  it("should show a failed parse's line and column, keep the edited form, and retry with it", async () => {
    db.powerTraces.push(powerTraceFixture({ id: TRACE_ID }));
    const message = 'Line 12, column 2 (Main(mA)): expected a number, found "abc".';
    finishParsingWith({ status: 'failed', error: { message, line: 12, column: 2 } });
    const bodies: unknown[] = [];
    server.use(
      http.post('/api/power-traces/:id/parse/', async ({ request }) => {
        bodies.push(await request.json());
        const trace = db.powerTraces[0]!;
        Object.assign(trace, { status: 'parsing', progress: 0, spec: bodies.at(-1) });
        return HttpResponse.json(trace, { status: 202 });
      }),
    );
    const { user } = renderApp(`/power/${TRACE_ID}`);

    const form = await screen.findByRole('form', { name: 'Column mapping' });
    const skip = within(form).getByRole('spinbutton', { name: 'Lines to skip' });
    await user.clear(skip);
    await user.type(skip, '2');
    await user.selectOptions(within(form).getByRole('combobox', { name: 'Current unit' }), 'µA');
    await user.click(within(form).getByRole('button', { name: 'Parse' }));

    const alert = await screen.findByRole('alert', {}, { timeout: 3000 });
    expect(alert).toHaveTextContent(`Parsing failed. ${message}`);
    expect(screen.getByRole('status')).toHaveTextContent('Status: failed');
    // The form is still there, with the user's edits, ready for another try.
    expect(screen.getByRole('form', { name: 'Column mapping' })).toBe(form);
    expect(skip).toHaveValue(2);
    expect(within(form).getByRole('combobox', { name: 'Current unit' })).toHaveDisplayValue('µA');
    expect(within(form).getByRole('button', { name: 'Parse' })).toBeEnabled();

    await user.selectOptions(within(form).getByRole('combobox', { name: 'Current unit' }), 'mA');
    await user.click(within(form).getByRole('button', { name: 'Parse' }));
    await waitFor(() => expect(bodies).toHaveLength(2));
    expect(bodies[0]).toEqual({ ...monsoonDetection.spec, skip_lines: 2, current: { column: 1, unit: 'uA' } });
    expect(bodies[1]).toEqual({ ...monsoonDetection.spec, skip_lines: 2 });
  });

  it('should check the mapping before sending it, next to the fields', async () => {
    db.powerTraces.push(powerTraceFixture({ id: TRACE_ID }));
    let posted = false;
    server.use(
      http.post('/api/power-traces/:id/parse/', () => {
        posted = true;
        return new HttpResponse(null, { status: 500 });
      }),
    );
    const { user } = renderApp(`/power/${TRACE_ID}`);

    const form = await screen.findByRole('form', { name: 'Column mapping' });
    // Current only, without a supply voltage: power cannot be computed.
    await user.selectOptions(within(form).getByRole('combobox', { name: 'Voltage column' }), 'Not in this file');
    await user.click(within(form).getByRole('radio', { name: 'A fixed sample rate' }));
    await user.click(within(form).getByRole('button', { name: 'Parse' }));

    expect(within(form).getByRole('alert')).toHaveTextContent('Please correct the highlighted fields.');
    const supply = within(form).getByRole('spinbutton', { name: 'Supply voltage (V)' });
    expect(supply).toHaveAttribute('aria-invalid', 'true');
    expect(supply).toHaveAccessibleDescription(
      'Required when the file logs current only; also used for charge in mAh. Enter the supply voltage: without a voltage or power column, power is current × supply voltage.',
    );
    const rate = within(form).getByRole('spinbutton', { name: 'Sample rate (Hz)' });
    expect(rate).toHaveAccessibleDescription('The sample rate must be a number.');
    expect(posted).toBe(false);
  });

  it("should show the server's field errors next to the mapping fields", async () => {
    db.powerTraces.push(powerTraceFixture({ id: TRACE_ID }));
    server.use(
      http.post('/api/power-traces/:id/parse/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid.', {
          fields: { delimiter: ['Not a delimiter of this file.'], time: { column: ['Column 9 does not exist.'] } },
        }),
      ),
    );
    const { user } = renderApp(`/power/${TRACE_ID}`);

    const form = await screen.findByRole('form', { name: 'Column mapping' });
    await user.click(within(form).getByRole('button', { name: 'Parse' }));

    const delimiter = within(form).getByRole('combobox', { name: 'Delimiter' });
    await waitFor(() => expect(delimiter).toHaveAttribute('aria-invalid', 'true'));
    expect(delimiter).toHaveAccessibleDescription('Not a delimiter of this file.');
    expect(within(form).getByRole('combobox', { name: 'Time column' })).toHaveAccessibleDescription(
      'Column 9 does not exist.',
    );
    expect(within(form).getByRole('alert')).toHaveTextContent('Some fields are invalid.');
  });
});

describe('Power trace page, parsed', () => {
  it('should draw the min–max band and mean with the run window shaded, and refetch the zoomed window', async () => {
    seedParsed();
    const requested: string[] = [];
    server.use(
      http.get('/api/power-traces/:id/plot/', ({ request }) => {
        const query = new URL(request.url).searchParams;
        requested.push(query.toString());
        if (!query.has('start')) return HttpResponse.json(plot);
        return HttpResponse.json({
          ...plot,
          start_s: 10,
          end_s: 20,
          samples: 3,
          exact: true,
          t: [10, 15, 20],
          min_w: [1.9, 2.1, 2],
          max_w: [1.9, 2.1, 2],
          mean_w: [1.9, 2.1, 2],
        } satisfies PowerPlot);
      }),
    );
    renderApp(`/power/${TRACE_ID}`);

    const panel = await screen.findByRole('region', { name: 'Power over time' });
    expect(screen.getByRole('status')).toHaveTextContent('Status: parsed');
    await waitFor(() => expect(lastEnvelope()).toBeDefined());
    expect(lastEnvelope()?.data).toEqual([
      expect.objectContaining({ name: 'Max', x: plot.t, y: plot.max_w }),
      expect.objectContaining({ name: 'Min–max', x: plot.t, y: plot.min_w, fill: 'tonexty' }),
      expect.objectContaining({ name: 'Mean', x: plot.t, y: plot.mean_w }),
    ]);
    expect(lastEnvelope()?.layout.shapes).toEqual([expect.objectContaining({ x0: 1.5, x1: 31.5 })]);
    expect(requested).toEqual(['points=2000']);
    expect(within(panel).getByText(/3 buckets of 1,200,000 samples/)).toBeInTheDocument();

    act(() => lastEnvelope()?.onRelayout?.({ 'xaxis.range[0]': 10, 'xaxis.range[1]': 20 }));

    await waitFor(() => expect(lastEnvelope()?.data).toEqual([expect.objectContaining({ name: 'Mean', y: [1.9, 2.1, 2] })]));
    expect(requested).toEqual(['points=2000', 'start=10&end=20&points=2000']);
    expect(within(panel).getByText('Every sample in view (3).')).toBeInTheDocument();
  });

  it('should nudge the alignment offset, save it and move the shaded run window', async () => {
    seedParsed();
    const patches: unknown[] = [];
    const recordPatch = ({ request }: { request: Request }) => {
      if (request.method === 'PATCH') void request.clone().json().then((body) => patches.push(body));
    };
    server.events.on('request:start', recordPatch);
    onTestFinished(() => server.events.removeListener('request:start', recordPatch));
    const { user } = renderApp(`/power/${TRACE_ID}`);

    const panel = await screen.findByRole('region', { name: 'Power over time' });
    expect(within(panel).getByText("Aligned by the meter's absolute timestamps.")).toBeInTheDocument();
    const offset = within(panel).getByRole('spinbutton', { name: 'Offset (s)' });
    expect(offset).toHaveValue(1.5);

    await user.click(within(panel).getByRole('button', { name: '+1 s' }));

    expect(await within(panel).findByText('Aligned by hand: the run starts 2.500 s into the trace.')).toBeInTheDocument();
    expect(patches).toEqual([{ offset_s: 2.5 }]);
    await waitFor(() => expect(lastEnvelope()?.layout.shapes).toEqual([expect.objectContaining({ x0: 2.5, x1: 32.5 })]));

    await user.click(within(panel).getByRole('button', { name: '−0.1 s' }));
    await waitFor(() => expect(offset).toHaveValue(2.4));
    await waitFor(() => expect(patches).toEqual([{ offset_s: 2.5 }, { offset_s: 2.4 }]));

    await user.clear(offset);
    await user.type(offset, '-90000');
    await user.click(within(panel).getByRole('button', { name: 'Apply offset' }));
    expect(offset).toHaveAccessibleDescription(
      "Where the run starts on the trace's time axis. Shift until the shaded window covers the activity. The offset must be at least −86400 s.",
    );
    expect(patches).toHaveLength(2);
  });

  it('should show the figures of the run window, then recompute them against a baseline and a reference', async () => {
    seedParsed();
    const queries: string[] = [];
    server.use(
      http.get('/api/power-traces/:id/figures/', ({ request }) => {
        const query = new URL(request.url).searchParams;
        queries.push(query.toString());
        if (!query.has('reference_trace')) return HttpResponse.json(windowFigures);
        return HttpResponse.json({
          ...windowFigures,
          baseline: { source: 'constant', power_w: 1.31 },
          net_mean_w: 0.73,
          net_energy_j: 21.9,
          net_energy_per_message_j: 0.0876,
          reference: { trace: PLAIN_ID, name: 'plain run', mean_w: 1.31, overhead_w: 0.73, overhead_pct: 55.725 },
        } satisfies PowerFigures);
      }),
    );
    const { user } = renderApp(`/power/${TRACE_ID}`);

    const panel = await screen.findByRole('region', { name: 'Figures' });
    expect(within(panel).getByRole('spinbutton', { name: 'Window start (s)' })).toHaveValue(1.5);
    expect(within(panel).getByRole('spinbutton', { name: 'Window end (s)' })).toHaveValue(31.5);
    const table = await within(panel).findByRole('table', { name: 'Figures' });
    expect(queries).toEqual(['start=1.5&end=31.5']);
    expect(cellsOf(table, 'Window')).toEqual(['1.500–31.500 s (30.000 s, 150,000 samples)']);
    expect(cellsOf(table, 'Mean power (W)')).toEqual(['2.040']);
    expect(cellsOf(table, 'Max power (W)')).toEqual(['2.600']);
    expect(cellsOf(table, 'Energy (J)')).toEqual(['61.200']);
    expect(cellsOf(table, 'Baseline power (W)')).toEqual(['—']);
    expect(cellsOf(table, 'Messages')).toEqual(['250']);
    expect(cellsOf(table, 'Energy per message (mJ)')).toEqual(['244.800']);
    expect(cellsOf(table, 'Charge at 5.00 V (mAh)')).toEqual(['3.400']);
    expect(within(table).queryByRole('row', { name: /Overhead/ })).not.toBeInTheDocument();

    await user.click(within(panel).getByRole('button', { name: 'Whole trace' }));
    expect(within(panel).getByRole('spinbutton', { name: 'Window end (s)' })).toHaveValue(120);
    await user.click(within(panel).getByRole('button', { name: 'Use run window' }));
    await user.selectOptions(
      within(panel).getByRole('combobox', { name: 'Baseline' }),
      'Constant current (mA) at the supply voltage',
    );
    const current = within(panel).getByRole('spinbutton', { name: 'Baseline: current (mA)' });
    expect(current).toHaveAccessibleDescription('At the supply voltage, 5.00 V.');
    await user.type(current, '262');
    const reference = within(panel).getByRole('combobox', { name: 'Reference trace' });
    expect(within(reference).getAllByRole('option').map((o) => o.textContent)).toEqual(['None', 'plain run', 'idle']);
    await user.selectOptions(reference, 'plain run');
    await user.click(within(panel).getByRole('button', { name: 'Compute figures' }));

    await within(table).findByRole('row', { name: /Overhead vs reference \(%\)/ });
    expect(queries.at(-1)).toBe(`start=1.5&end=31.5&baseline_current_a=0.262&reference_trace=${PLAIN_ID}`);
    expect(cellsOf(table, 'Baseline power (W)')).toEqual(['1.310 (constant)']);
    expect(cellsOf(table, 'Net mean power (W)')).toEqual(['0.730']);
    expect(cellsOf(table, 'Net energy per message (mJ)')).toEqual(['87.600']);
    expect(cellsOf(table, 'Reference mean power (W), plain run')).toEqual(['1.310']);
    expect(cellsOf(table, 'Overhead vs reference (W)')).toEqual(['0.730']);
    expect(cellsOf(table, 'Overhead vs reference (%)')).toEqual(['55.7 %']);
  });

  it('should refuse a window that ends before it starts', async () => {
    seedParsed();
    const { user } = renderApp(`/power/${TRACE_ID}`);

    const panel = await screen.findByRole('region', { name: 'Figures' });
    const start = within(panel).getByRole('spinbutton', { name: 'Window start (s)' });
    await user.clear(start);
    await user.type(start, '40');
    await user.click(within(panel).getByRole('button', { name: 'Compute figures' }));

    expect(within(panel).getByRole('spinbutton', { name: 'Window end (s)' })).toHaveAccessibleDescription(
      'The end must come after the start.',
    );
  });

  it('should project battery life for this trace and the compared ones, explaining the ones without hours', async () => {
    seedParsed();
    const queries: string[] = [];
    server.use(
      http.get('/api/power-traces/projection/', ({ request }) => {
        const query = new URL(request.url).searchParams;
        queries.push(query.toString());
        return HttpResponse.json({
          capacity_wh: 37,
          rates_per_min: [0, 30, 60],
          series: [
            {
              trace: TRACE_ID,
              name: 'srup run',
              mean_w: 2.04,
              idle_w: 1.2,
              energy_per_message_j: 0.05,
              continuous_hours: 18.137,
              hours: [30.8, 29.9, 29.1],
              reason: '',
              source: 'trace',
              warnings: [],
            },
            {
              trace: PLAIN_ID,
              name: 'plain run',
              mean_w: 1.31,
              idle_w: null,
              energy_per_message_j: null,
              continuous_hours: 28.24,
              hours: null,
              reason: 'The run sent no messages in the window.',
              source: 'trace',
              warnings: [],
            },
          ],
        });
      }),
    );
    const { user } = renderApp(`/power/${TRACE_ID}`);

    const panel = await screen.findByRole('region', { name: 'Battery life' });
    await waitFor(() => expect(queries).toEqual([`trace=${TRACE_ID}&capacity_wh=50&rate_max_per_min=60`]));

    await user.click(within(panel).getByRole('radio', { name: 'mAh at a voltage' }));
    await user.type(within(panel).getByRole('spinbutton', { name: 'Capacity (mAh)' }), '10000');
    expect(within(panel).getByRole('spinbutton', { name: 'Capacity (mAh)' })).toHaveAccessibleDescription('= 37.0 Wh');
    await user.selectOptions(within(panel).getByRole('combobox', { name: 'Idle power' }), 'A baseline trace');
    await user.selectOptions(within(panel).getByRole('combobox', { name: 'Idle power: trace' }), 'pi3 idle');
    await user.click(within(panel).getByRole('checkbox', { name: 'plain run' }));
    await user.click(within(panel).getByRole('button', { name: 'Project battery life' }));

    await waitFor(() =>
      expect(queries.at(-1)).toBe(
        `trace=${TRACE_ID}&trace=${PLAIN_ID}&capacity_mah=10000&capacity_voltage_v=3.7&baseline_trace=${IDLE_ID}&rate_max_per_min=60`,
      ),
    );
    const table = await within(panel).findByRole('table', { name: 'Battery life on 37.0 Wh' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Trace', 'Mean power (W), energy / duration', 'Continuous operation', 'Idle power (W)', 'Energy per message (mJ)', 'Duty-cycled, 60 msg/min',
    ]);
    expect(cellsOf(table, 'srup run')).toEqual(['2.040', '18.1 h', '1.200', '50.000', '29.1 h']);
    expect(cellsOf(table, 'plain run')).toEqual(['1.310', '28.2 h', '—', '—', 'The run sent no messages in the window.']);

    expect(within(panel).getByRole('region', { name: 'Battery life against message rate' })).toBeInTheDocument();
    await waitFor(() =>
      expect(lastProjection()?.data).toEqual([expect.objectContaining({ name: 'srup run', x: [0, 30, 60], y: [30.8, 29.9, 29.1] })]),
    );
    expect(lastProjection()?.layout.yaxis).toMatchObject({ title: { text: 'Battery life (h)' } });
  });
});
