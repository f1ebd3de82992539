import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import { db, parsedTraceFixture, powerTraceFixture } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { fireEvent, renderApp, screen, within } from '@/testing/test-utils';

const csv = (name = 'monsoon.csv') => new File(['Time(ms),Main(mA)\n0.0002,12.3\n'], name, { type: 'text/csv' });

/** The file input sits (visually hidden) behind its "Choose a trace file" label. */
const fileInput = () => screen.getByLabelText<HTMLInputElement>('Choose a trace file');

describe('Power traces page', () => {
  it('should be reachable from the main navigation', async () => {
    const { user, router } = renderApp('/experiments');

    await user.click(await screen.findByRole('link', { name: 'Power' }));

    expect(await screen.findByRole('heading', { name: 'Power traces' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/power');
  });

  it('should upload a file with a progress bar, then open its trace page', async () => {
    // Hold the response until the test has seen the bar.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const received: Record<string, string> = {};
    server.use(
      http.post('/api/power-traces/', async ({ request }) => {
        const form = await request.formData();
        for (const key of ['name', 'device', 'run', 'baseline_name']) {
          const value = form.get(key);
          if (typeof value === 'string') received[key] = value;
        }
        received.file = form.get('file') === null ? 'missing' : 'present';
        await held;
        const trace = powerTraceFixture({ id: 'a0000000-0000-4000-8000-0000000000aa', name: 'idle pi' });
        db.powerTraces.push(trace);
        return HttpResponse.json(trace, { status: 201 });
      }),
    );
    const { user, router } = renderApp('/power');

    const upload = await screen.findByRole('region', { name: 'Upload a trace' });
    await user.upload(fileInput(), csv());
    expect(within(upload).getByText('monsoon.csv')).toBeInTheDocument();
    await user.type(within(upload).getByRole('textbox', { name: 'Name (optional)' }), 'idle pi');
    const device = await within(upload).findByRole('option', { name: 'pi-lab-2' });
    await user.selectOptions(within(upload).getByRole('combobox', { name: 'Device' }), device);
    await user.click(within(upload).getByRole('button', { name: 'Upload' }));

    const bar = await within(upload).findByRole('progressbar', { name: 'Upload progress' });
    expect(bar).toHaveAttribute('aria-valuemin', '0');
    expect(bar).toHaveAttribute('aria-valuemax', '100');
    expect(bar).toHaveAttribute('aria-valuenow', '0');
    expect(within(upload).getByText('Uploading… 0 %')).toBeInTheDocument();
    expect(within(upload).getByRole('button', { name: 'Upload' })).toBeDisabled();
    expect(within(upload).getByRole('button', { name: 'Cancel upload' })).toBeEnabled();

    release();

    expect(await screen.findByRole('heading', { name: 'Power trace: idle pi' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/power/a0000000-0000-4000-8000-0000000000aa');
    expect(received).toEqual({ name: 'idle pi', device: '5d1c0d9e-0000-4000-8000-000000000002', file: 'present' });
  });

  it('should accept a dropped file and send a baseline name', async () => {
    const { user } = renderApp('/power');
    const upload = await screen.findByRole('region', { name: 'Upload a trace' });

    fireEvent.drop(within(upload).getByText(/Drop a power meter/).parentElement as HTMLElement, {
      dataTransfer: { files: [csv('idle.csv')] },
    });
    expect(within(upload).getByText('idle.csv')).toBeInTheDocument();
    await user.type(within(upload).getByRole('textbox', { name: 'Baseline name (optional)' }), 'pi3 idle');
    await user.click(within(upload).getByRole('button', { name: 'Upload' }));

    expect(await screen.findByRole('heading', { name: /^Power trace:/ })).toBeInTheDocument();
    expect(db.powerTraces).toEqual([expect.objectContaining({ kind: 'baseline', baseline_name: 'pi3 idle' })]);
  });

  it('should refuse a file over 200 MiB before sending anything', async () => {
    let posted = false;
    server.use(
      http.post('/api/power-traces/', () => {
        posted = true;
        return errorResponse(413, 'power_trace_too_large', 'Too large.');
      }),
    );
    const { user } = renderApp('/power');
    await screen.findByRole('region', { name: 'Upload a trace' });

    const huge = csv('week.csv');
    Object.defineProperty(huge, 'size', { value: 250 * 1024 * 1024 });
    await user.upload(fileInput(), huge);

    const message = 'This file is 250.0 MiB; traces can be at most 200.0 MiB.';
    expect(screen.getByText(message)).toBeInTheDocument();
    expect(fileInput()).toHaveAttribute('aria-invalid', 'true');
    expect(fileInput()).toHaveAccessibleDescription(message);

    await user.click(screen.getByRole('button', { name: 'Upload' }));
    expect(screen.getByText(message)).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
    expect(posted).toBe(false);
  });

  it('should ask for a file, and show server field errors next to their fields', async () => {
    server.use(
      http.post('/api/power-traces/', () =>
        errorResponse(400, 'validation_error', 'Some fields are invalid.', {
          fields: { device: ['No device with this id in your workspace.'] },
        }),
      ),
    );
    const { user } = renderApp('/power');
    const upload = await screen.findByRole('region', { name: 'Upload a trace' });

    await user.click(within(upload).getByRole('button', { name: 'Upload' }));
    expect(within(upload).getByText('Choose a trace file.')).toBeInTheDocument();

    await user.upload(fileInput(), csv());
    await user.selectOptions(
      within(upload).getByRole('combobox', { name: 'Device' }),
      await within(upload).findByRole('option', { name: 'pi-lab-1' }),
    );
    await user.click(within(upload).getByRole('button', { name: 'Upload' }));

    const device = within(upload).getByRole('combobox', { name: 'Device' });
    await screen.findByText('No device with this id in your workspace.');
    expect(device).toHaveAttribute('aria-invalid', 'true');
    expect(device).toHaveAccessibleDescription('No device with this id in your workspace.');
    expect(within(upload).getByRole('alert')).toHaveTextContent('Some fields are invalid.');
  });

  it('should list traces with kind, device, run and status, and filter them by kind', async () => {
    db.powerTraces.push(
      parsedTraceFixture({ id: 'a0000000-0000-4000-8000-000000000001', name: 'srup run' }),
      powerTraceFixture({
        id: 'a0000000-0000-4000-8000-000000000002',
        name: '',
        original_filename: 'idle.csv',
        kind: 'baseline',
        baseline_name: 'pi3 idle',
        status: 'failed',
      }),
    );
    const { user } = renderApp('/power');

    const table = await screen.findByRole('table', { name: 'Power traces' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Name', 'Kind', 'Device', 'Run', 'Status', 'Samples', 'Duration', 'Uploaded',
    ]);
    const run = within(table).getByRole('row', { name: /srup run/ });
    expect(within(run).getByRole('link', { name: 'srup run' })).toHaveAttribute(
      'href',
      '/power/a0000000-0000-4000-8000-000000000001',
    );
    expect(within(run).getAllByRole('cell').map((c) => c.textContent).slice(0, 5)).toEqual([
      'Run', 'pi-lab-1', 'Open run', 'parsed', '1,200,000',
    ]);
    expect(within(run).getByRole('link', { name: 'Open run' })).toHaveAttribute(
      'href',
      '/runs/r0000000-0000-4000-8000-000000000001',
    );
    const baseline = within(table).getByRole('row', { name: /idle\.csv/ });
    expect(within(baseline).getAllByRole('cell').map((c) => c.textContent).slice(0, 4)).toEqual([
      'Baseline · pi3 idle', '—', '—', 'failed',
    ]);

    await user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'Baseline');

    await vi.waitFor(() => expect(within(table).queryByRole('row', { name: /srup run/ })).not.toBeInTheDocument());
    expect(within(screen.getByRole('table', { name: 'Power traces' })).getAllByRole('row')).toHaveLength(2);

    await user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'Device');
    expect(await screen.findByText('No traces of this kind.')).toBeInTheDocument();
  });
});
