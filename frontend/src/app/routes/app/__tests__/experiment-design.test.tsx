import { describe, expect, it } from 'vitest';

import { db, experimentFixture } from '@/testing/mocks/db';
import { renderApp, screen, waitFor, within } from '@/testing/test-utils';
import type { Preset } from '@/types/api';

const renderForm = async (url = '/experiments/new') => {
  const view = renderApp(url);
  expect(await screen.findByRole('heading', { name: 'New experiment' })).toBeInTheDocument();
  await screen.findByRole('group', { name: 'Devices' });
  return view;
};

const plan = () => screen.getByRole('region', { name: 'Plan' });

const srupPreset: Preset = {
  slug: 'mqtt-coap-paper',
  title: 'MQTT vs CoAP paper',
  paper: 'Quincozes et al., SBSeg 2019',
  source_url: 'https://example.org/paper.pdf',
  tables: 'Tabela 1',
  devices: 1,
  cells: 3,
  notes: ['TEA-CBC with PKCS#7 padding is used.'],
  as_in_paper: [],
  differs_here: [],
  design: {
    name: 'MQTT vs CoAP',
    kind: 'messaging',
    description: 'QoS 0/1 and payload sizes.',
    message_count: 500,
    axes: [
      { name: 'protocol', values: [{ protocol: 'mqtt', qos: 0 }, { protocol: 'coap', qos: 1 }] },
      { parameter: 'payload_size', values: [66, 1700] },
    ],
    exclusions: [{ protocol: 'coap', qos: 1, payload_size: 1700 }],
    repeats: 1,
  },
};

describe('Designing a condition matrix', () => {
  it('should show the plan of a single run before anything is created', async () => {
    await renderForm();

    expect(await within(plan()).findByText('1 run: 1 combination')).toBeInTheDocument();
    expect(within(plan()).getByText(/about 1 min/)).toBeInTheDocument();
    expect(db.experiments).toHaveLength(0);
  });

  it('should turn QoS into an axis, count its runs and list their labels', async () => {
    const { user } = await renderForm();

    await user.click(screen.getByRole('checkbox', { name: 'Vary QoS' }));
    const qos = screen.getByRole('group', { name: 'QoS' });
    expect(within(qos).getByRole('checkbox', { name: '1' })).toBeChecked();
    await user.click(within(qos).getByRole('checkbox', { name: '0' }));
    await user.click(within(qos).getByRole('checkbox', { name: '2' }));

    expect(await within(plan()).findByText('3 runs: 3 combinations')).toBeInTheDocument();
    expect(within(screen.getByRole('list', { name: 'Axes' })).getByRole('listitem')).toHaveTextContent(
      'QoS: QoS 0, QoS 1, QoS 2',
    );
    await user.click(within(plan()).getByText('Planned runs'));
    expect(within(plan()).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'qos 0',
      'qos 1',
      'qos 2',
    ]);
  });

  it('should take comma-separated values for a varied number and check each', async () => {
    const { user } = await renderForm();

    await user.click(screen.getByRole('checkbox', { name: 'Vary Payload size (bytes)' }));
    const sizes = screen.getByRole('textbox', { name: 'Payload size (bytes)' });
    await user.clear(sizes);
    await user.type(sizes, '66, 70000');
    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Sizes');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(sizes).toHaveAccessibleDescription(
      'Several values, comma-separated: one run each. Payload size must be at most 65536 bytes.',
    );
    expect(db.experiments).toHaveLength(0);
  });

  it('should exclude a combination and repeat the others', async () => {
    const { user } = await renderForm();

    await user.click(screen.getByRole('checkbox', { name: 'Vary QoS' }));
    await user.click(within(screen.getByRole('group', { name: 'QoS' })).getByRole('checkbox', { name: '2' }));
    await user.click(screen.getByRole('checkbox', { name: 'Vary Interval distribution' }));
    await user.click(
      within(screen.getByRole('group', { name: 'Interval distribution' })).getByRole('checkbox', {
        name: 'Exponential (Poisson arrivals)',
      }),
    );
    expect(await within(plan()).findByText('4 runs: 4 combinations')).toBeInTheDocument();

    await user.selectOptions(screen.getByRole('combobox', { name: 'Exclude where QoS is' }), 'QoS 2');
    await user.selectOptions(
      screen.getByRole('combobox', { name: 'Exclude where interval distribution is' }),
      'Fixed',
    );
    await user.click(screen.getByRole('button', { name: 'Exclude this combination' }));
    const repeats = screen.getByRole('spinbutton', { name: 'Repeats' });
    await user.clear(repeats);
    await user.type(repeats, '2');

    expect(within(screen.getByRole('list', { name: 'Excluded combinations' })).getByRole('listitem')).toHaveTextContent(
      'QoS 2 · Fixed',
    );
    expect(await within(plan()).findByText('6 runs: 3 combinations × 2 repeats, 1 excluded')).toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'QoS x gaps');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('heading', { name: 'QoS x gaps' })).toBeInTheDocument();
    expect(db.experiments[0]).toMatchObject({
      axes: [
        { name: 'QoS', values: [{ qos: 1 }, { qos: 2 }] },
        { name: 'interval distribution', values: [{ interval_distribution: 'fixed' }, { interval_distribution: 'exponential' }] },
      ],
      exclusions: [{ qos: 2, interval_distribution: 'fixed' }],
      repeats: 2,
    });
  });

  it("should show the server's errors about bad combinations next to the matrix", async () => {
    const { user } = await renderForm();

    await user.selectOptions(screen.getByRole('combobox', { name: 'Payload security' }), 'AES-128-CBC');
    await user.click(screen.getByRole('checkbox', { name: 'Vary Protocol' }));
    await user.click(
      within(screen.getByRole('group', { name: 'Protocol' })).getByRole('checkbox', { name: 'SRUP (signed MQTT)' }),
    );

    expect(await within(plan()).findByText('This design cannot run as it is:')).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Bad');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    const matrix = screen.getByRole('group', { name: 'Matrix' });
    expect(await within(matrix).findByRole('alert')).toHaveTextContent(/Run “protocol srup”: security: SRUP signs/);
    expect(within(matrix).getByRole('alert')).toHaveTextContent(
      'Change the axis values or add these combinations to the exclusions.',
    );
    expect(db.experiments).toHaveLength(0);
  });

  it('should open the experiment page, not a run page, when "Create and run" queues several runs', async () => {
    const { user, router } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Two runs');
    const repeats = screen.getByRole('spinbutton', { name: 'Repeats' });
    await user.clear(repeats);
    await user.type(repeats, '2');
    await user.click(screen.getByRole('button', { name: 'Create and run' }));

    expect(await screen.findByRole('heading', { name: 'Two runs' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(`/experiments/${db.experiments[0]?.id}`);
    expect(db.runs.map((run) => run.status)).toEqual(['queued', 'queued']);
  });

  it("should show the plan's warnings", async () => {
    db.planWarnings = ['The design runs for more than an hour.'];
    await renderForm();

    expect(await within(plan()).findByRole('list', { name: 'Warnings' })).toHaveTextContent(
      'The design runs for more than an hour.',
    );
  });
});

describe('Starting from a preset', () => {
  it('should list the presets with their paper, source and notes, and fill the form from one', async () => {
    db.presets.push(srupPreset);
    const { user, router } = await renderForm();

    const presets = await screen.findByRole('region', { name: 'Start from a preset' });
    expect(within(presets).getByRole('heading', { name: 'MQTT vs CoAP paper' })).toBeInTheDocument();
    expect(within(presets).getByRole('link', { name: 'Quincozes et al., SBSeg 2019' })).toHaveAttribute(
      'href',
      'https://example.org/paper.pdf',
    );
    expect(within(presets).getByText('From Tabela 1. The paper used 1 device.')).toBeInTheDocument();
    expect(within(presets).getByText('TEA-CBC with PKCS#7 padding is used.')).toBeInTheDocument();

    await user.click(within(presets).getByRole('button', { name: 'Use the preset MQTT vs CoAP paper' }));

    expect(router.state.location.search).toBe('?preset=mqtt-coap-paper');
    expect(await screen.findByRole('textbox', { name: 'Name' })).toHaveValue('MQTT vs CoAP');
    expect(screen.getByRole('textbox', { name: 'Description (optional)' })).toHaveValue('QoS 0/1 and payload sizes.');
    expect(screen.getByRole('spinbutton', { name: 'Messages per device' })).toHaveValue(500);
    // The linked protocol/QoS axis stays as the paper has it; the payload sizes become a Vary field.
    expect(screen.getByRole('textbox', { name: 'Payload size (bytes)' })).toHaveValue('66, 1700');
    expect(within(screen.getByRole('list', { name: 'Axes' })).getAllByRole('listitem')[0]).toHaveTextContent(
      'protocol: MQTT · QoS 0, CoAP · QoS 1',
    );
    expect(await within(plan()).findByText('3 runs: 3 combinations, 1 excluded')).toBeInTheDocument();
  });

  it('should send the preset slug with the design', async () => {
    db.presets.push(srupPreset);
    const { user } = await renderForm('/experiments/new?preset=mqtt-coap-paper');

    await screen.findByRole('list', { name: 'Axes' });
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'MQTT vs CoAP' })).toBeInTheDocument();
    // The preset's words were written for its design: the server writes them again for this one.
    expect(db.experiments[0]).toMatchObject({
      preset: 'mqtt-coap-paper',
      description: 'QoS 0/1 and payload sizes.',
      description_generated: true,
    });
  });

  it("should keep the user's own description verbatim once they type one", async () => {
    db.presets.push(srupPreset);
    const { user } = await renderForm('/experiments/new?preset=mqtt-coap-paper');

    await screen.findByRole('list', { name: 'Axes' });
    const description = screen.getByRole('textbox', { name: 'Description (optional)' });
    expect(description).toHaveAccessibleDescription(/Written from the design when you save/);
    await user.clear(description);
    await user.type(description, 'Our lab, 3 repetitions.');
    expect(description).not.toHaveAccessibleDescription(/Written from the design/);
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'MQTT vs CoAP' })).toBeInTheDocument();
    expect(db.experiments[0]).toMatchObject({ description: 'Our lab, 3 repetitions.', description_generated: false });
  });
});

describe('Cloning an experiment', () => {
  it('should open the form filled from the experiment, named "Copy of …"', async () => {
    db.experiments.push(
      experimentFixture({
        name: 'QoS sweep',
        qos: 0,
        axes: [{ name: 'QoS', values: [{ qos: 0 }, { qos: 2 }] }],
        repeats: 3,
      }),
    );
    await renderForm(`/experiments/new?from=${db.experiments[0]?.id}`);

    expect(await screen.findByRole('textbox', { name: 'Name' })).toHaveValue('Copy of QoS sweep');
    const qos = screen.getByRole('group', { name: 'QoS' });
    expect(within(qos).getByRole('checkbox', { name: '0' })).toBeChecked();
    expect(within(qos).getByRole('checkbox', { name: '2' })).toBeChecked();
    expect(within(qos).getByRole('checkbox', { name: '1' })).not.toBeChecked();
    expect(screen.getByRole('spinbutton', { name: 'Repeats' })).toHaveValue(3);
    await waitFor(() => expect(within(plan()).getByText('6 runs: 2 combinations × 3 repeats')).toBeInTheDocument());
  });
});
