import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import type { PlotlyFigureProps } from '@/components/charts/plotly-figure';
import { db, experimentFixture } from '@/testing/mocks/db';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, waitFor, within } from '@/testing/test-utils';
import type { ExperimentCell, ExperimentResults } from '@/types/api';

// The seam: Plotly cannot draw in jsdom (see run.test.tsx).
const plotlyFigure = vi.hoisted(() => vi.fn((_props: unknown) => null));
vi.mock('@/components/charts/plotly-figure', () => ({ default: plotlyFigure }));

const EXPERIMENT = 'f6666666-0000-4000-8000-000000000006';

const cell = (
  parameters: Record<string, unknown>,
  runs: number,
  medianS: number,
  ci: [number, number] | null,
): ExperimentCell => ({
  key: JSON.stringify(parameters),
  label: Object.values(parameters).join(' · '),
  parameters,
  runs: Array.from({ length: runs }, (_, n) => ({
    run_id: `0000000${n}-0000-4000-8000-000000000000`,
    repeat: n + 1,
    median_ms: medianS * 1000,
    mean_ms: medianS * 1000,
    messages: 100,
    lost: 0,
  })),
  other_runs: {},
  interval_level: runs > 1 ? 'runs' : 'messages',
  messages: 100 * runs,
  lost: 0,
  mean_ms: medianS * 1000,
  mean_ci_ms: null,
  median_ms: medianS * 1000,
  median_ci_ms: null,
  ci_clipped: false,
  metrics: [{ name: 'seconds', unit: 's', value: medianS, ci }],
});

// A 3 security × 2 payload matrix, two repeats each; one cell has a single completed run.
const CELLS = [
  cell({ security: 'none', payload_size: 16 }, 2, 0.001, [0.0008, 0.0012]),
  cell({ security: 'null', payload_size: 16 }, 2, 0.0011, [0.0009, 0.0013]),
  cell({ security: 'aes-128-cbc', payload_size: 16 }, 2, 0.0013, [0.0011, 0.0016]),
  cell({ security: 'none', payload_size: 1024 }, 2, 0.002, [0.0018, 0.0022]),
  cell({ security: 'null', payload_size: 1024 }, 2, 0.0021, [0.0019, 0.0024]),
  cell({ security: 'aes-128-cbc', payload_size: 1024 }, 1, 0.0025, [0.0021, 0.003]),
];

const RESULTS: ExperimentResults = {
  experiment_id: EXPERIMENT,
  kind: 'messaging',
  confidence: 0.95,
  baseline: null,
  quantity: 'one-way delay',
  cells: CELLS,
  overheads: [],
  methods: 'Round-trip times of 6 parameter combinations, 2 repeats each, were measured.',
};

const figures = () => plotlyFigure.mock.calls.map(([props]) => props as PlotlyFigureProps);

describe('Experiment results page', () => {
  afterEach(() => plotlyFigure.mockClear());

  const serve = (body: ExperimentResults) => {
    db.experiments.push(experimentFixture({ id: EXPERIMENT, name: 'AES matrix' }));
    server.use(http.get('*/api/experiments/:id/results/', () => HttpResponse.json(body)));
  };

  it('should draw one bar per cell with error bars from the intervals, and list the cells in a table', async () => {
    serve(RESULTS);
    renderApp(`/experiments/${EXPERIMENT}/results`);

    expect(await screen.findByRole('heading', { name: 'Results of AES matrix' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Cells of this experiment' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(6);
    expect(rows[5]).toHaveTextContent('aes-128-cbc · 1024');
    expect(rows[5]).toHaveTextContent('over messages (one run)');
    expect(rows[0]).toHaveTextContent('over runs');

    // The default shape: the median against the payload size, grouped by security.
    await waitFor(() => expect(figures().length).toBeGreaterThan(0));
    const bars = figures().at(-1)?.data as { name: string; y: number[]; error_y?: { array: number[]; arrayminus: number[] } }[];
    expect(bars.map((b) => b.name)).toEqual(['none', 'null', 'aes-128-cbc']);
    const aes = bars[2];
    expect(aes?.y).toEqual([0.0013, 0.0025]);
    expect(aes?.error_y?.array[1]).toBeCloseTo(0.0005);
    expect(aes?.error_y?.arrayminus[1]).toBeCloseTo(0.0004);
    // Its PNG and SVG downloads carry the figure's title with the experiment's name.
    const drawn = figures().at(-1);
    expect((drawn?.layout.title as { text: string }).text).toMatch(/^AES matrix: .+ per payload_size by security/);
    expect(drawn?.imageName).toMatch(/^AES matrix: .+ per payload_size by security/);

    // The table as files, and the methods paragraph for the whole experiment.
    expect(screen.getByRole('link', { name: 'CSV' })).toHaveAttribute(
      'href',
      expect.stringContaining(`/api/experiments/${EXPERIMENT}/results/table.csv`) as string,
    );
    expect(screen.getByRole('region', { name: 'Methods' })).toHaveTextContent('6 parameter combinations');
  });

  it('should name the figures by the quantity the runs measured', async () => {
    const cells = CELLS.map((c) => ({ ...c, metrics: [{ name: 'median_ms', unit: 'ms', value: c.median_ms, ci: null }] }));
    serve({ ...RESULTS, cells });
    renderApp(`/experiments/${EXPERIMENT}/results`);
    const table = await screen.findByRole('table', { name: 'Cells of this experiment' });
    expect(within(table).getByRole('columnheader', { name: 'Median one-way delay' })).toBeInTheDocument();
    expect(screen.getByRole('option', { name: 'Median one-way delay (ms)' })).toBeInTheDocument();
  });

  it('should say when a cell’s interval reached below 0 and was clipped there', async () => {
    serve({ ...RESULTS, cells: CELLS.map((c, n) => ({ ...c, ci_clipped: n === 1 })) });
    renderApp(`/experiments/${EXPERIMENT}/results`);
    const table = await screen.findByRole('table', { name: 'Cells of this experiment' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows[1]).toHaveTextContent('over runs (clipped at 0)');
    expect(rows[0]).not.toHaveTextContent('clipped');
  });

  it('should say that results appear as runs complete when no cell has a completed run', async () => {
    serve({ ...RESULTS, cells: [] });
    renderApp(`/experiments/${EXPERIMENT}/results`);
    expect(await screen.findByText(/No completed runs yet/)).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Cells of this experiment' })).not.toBeInTheDocument();
  });

  it('should show the not-found page for an experiment that does not exist', async () => {
    renderApp('/experiments/00000000-0000-4000-8000-000000000000/results');
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
  });
});
