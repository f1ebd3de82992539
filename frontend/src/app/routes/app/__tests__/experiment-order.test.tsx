import { describe, expect, it } from 'vitest';

import { db, experimentFixture, runBriefFixture } from '@/testing/mocks/db';
import { PLAN_DRAWN_SEED } from '@/testing/mocks/handlers';
import { renderApp, screen, within } from '@/testing/test-utils';

const renderForm = async () => {
  const view = renderApp('/experiments/new');
  expect(await screen.findByRole('heading', { name: 'New experiment' })).toBeInTheDocument();
  await screen.findByRole('group', { name: 'Devices' });
  return view;
};

const plan = () => screen.getByRole('region', { name: 'Plan' });
const seedField = () => screen.getByRole('spinbutton', { name: 'Run order seed (optional)' });

/** Varies QoS over 0, 1 and 2: three runs whose order the seed decides. */
const varyQos = async (user: Awaited<ReturnType<typeof renderForm>>['user']) => {
  await user.click(screen.getByRole('checkbox', { name: 'Vary QoS' }));
  const qos = screen.getByRole('group', { name: 'QoS' });
  await user.click(within(qos).getByRole('checkbox', { name: '0' }));
  await user.click(within(qos).getByRole('checkbox', { name: '2' }));
  expect(await within(plan()).findByText('3 runs: 3 combinations')).toBeInTheDocument();
};

const plannedOrder = async (user: Awaited<ReturnType<typeof renderForm>>['user']) => {
  await user.click(within(plan()).getByText('Planned runs'));
  return within(within(plan()).getByRole('list')).getAllByRole('listitem').map((item) => item.textContent);
};

describe('The run order of a design', () => {
  it('should show the seed a plan drew and put it in the design when asked', async () => {
    const { user } = await renderForm();
    await varyQos(user);

    expect(seedField()).toHaveValue(null);
    expect(within(plan()).getByText(new RegExp(`a fresh seed at every start. This plan drew seed ${PLAN_DRAWN_SEED}`)))
      .toBeInTheDocument();
    await user.click(within(plan()).getByRole('button', { name: `Use seed ${PLAN_DRAWN_SEED}` }));

    expect(seedField()).toHaveValue(PLAN_DRAWN_SEED);
    expect(
      await within(plan()).findByText(new RegExp(`Run order: seed ${PLAN_DRAWN_SEED}, as listed below`)),
    ).toBeInTheDocument();
    expect(within(plan()).queryByRole('button', { name: /Use seed/ })).not.toBeInTheDocument();
  });

  it('should list the runs in the order the typed seed gives and create the design with it', async () => {
    const { user } = await renderForm();
    await varyQos(user);

    await user.type(seedField(), '1');

    expect(await within(plan()).findByText(/Run order: seed 1, as listed below/)).toBeInTheDocument();
    expect(await plannedOrder(user)).toEqual(['qos 1', 'qos 2', 'qos 0']);
    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Seeded sweep');
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByRole('heading', { name: 'Seeded sweep' })).toBeInTheDocument();
    expect(db.experiments[0]).toMatchObject({ name: 'Seeded sweep', order_seed: 1 });
  });

  it('should leave the seed out of an unseeded design', async () => {
    const { user } = await renderForm();
    await varyQos(user);

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Fresh order');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'Fresh order' })).toBeInTheDocument();
    expect(db.experiments[0]?.order_seed ?? null).toBeNull();
  });

  it('should show a seed out of range at its field and clear the error once it is edited', async () => {
    const { user } = await renderForm();
    await varyQos(user);

    await user.type(seedField(), '2147483648');
    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Too far');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(seedField()).toHaveAccessibleDescription(expect.stringContaining('The seed must be 0 to 2147483647.'));
    expect(db.experiments).toHaveLength(0);
    await user.clear(seedField());
    await user.type(seedField(), '5');
    expect(seedField()).not.toHaveAccessibleDescription(expect.stringContaining('The seed must be'));
  });

  it('should show the seed drawn at the latest start on the experiment page', async () => {
    db.experiments.push(
      experimentFixture({
        id: 'e0000000-0000-4000-8000-00000000000a',
        name: 'Drawn order',
        axes: [{ name: 'QoS', values: [{ qos: 0 }, { qos: 1 }] }],
        order_seed: null,
        runs: [
          runBriefFixture({ id: 'r1', position: 0, order_seed: 11, created_at: '2025-01-02T10:00:00Z' }),
          runBriefFixture({ id: 'r2', position: 0, order_seed: 42, created_at: '2025-01-03T10:00:00Z' }),
        ],
      }),
    );
    renderApp('/experiments/e0000000-0000-4000-8000-00000000000a');

    expect(await screen.findByText(/^Seed 42, drawn at the latest start/)).toBeInTheDocument();
  });

  it("should show the design's own seed on the experiment page", async () => {
    db.experiments.push(
      experimentFixture({
        id: 'e0000000-0000-4000-8000-00000000000b',
        name: 'Given order',
        repeats: 2,
        order_seed: 7,
      }),
    );
    renderApp('/experiments/e0000000-0000-4000-8000-00000000000b');

    expect(await screen.findByText('Seed 7, set in the design: every start runs in this order')).toBeInTheDocument();
  });
});
