import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db, experimentFixture, networkCatalogueFixture, networkProfileFixture } from '@/testing/mocks/db';
import { errorResponse, NETWORK_PROFILE_UNKNOWN } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { captureCreateBody, renderNewExperimentForm as renderForm } from '@/testing/new-experiment-form';
import { renderApp, screen, within } from '@/testing/test-utils';

// The network-profile choice of the new-experiment form and the experiment's page
// (docs/network-profiles.md, "Using a profile in an experiment"). The rest of the form:
// experiment-new.test.tsx.

const SRUP_5 = 'c1000000-0000-4000-8000-000000000005';

const arrangeProfiles = () => {
  db.networkProfiles = [
    ...networkCatalogueFixture(),
    networkProfileFixture({ id: 'c0000000-0000-4000-8000-0000000000b1', name: 'Bench lab Wi-Fi' }),
  ];
};

describe('New experiment page: network profile', () => {
  it('should offer no shaping by default, then SRUP conditions, measured tables and the workspace’s own', async () => {
    arrangeProfiles();
    await renderForm();

    const select = screen.getByRole('combobox', { name: 'Network profile' });
    expect(select).toHaveDisplayValue('None (no shaping)');
    expect(select).toHaveAccessibleDescription(
      'Enforced on the device by the userspace link emulator; the agent must run as root.',
    );
    const groups = within(select).getAllByRole('group');
    expect(groups.map((group) => group.getAttribute('label'))).toEqual([
      'SRUP conditions (built-in)',
      'Measured tables (built-in)',
      'Your workspace',
    ]);
    expect(within(groups[0]!).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'SRUP 1: LAN Ethernet (no shaping)',
      'SRUP 5: Poor-strength 3G',
    ]);
    expect(within(groups[1]!).getAllByRole('option').map((o) => o.textContent)).toEqual(['TIM.bad.3G.no_roaming']);
    expect(within(groups[2]!).getAllByRole('option').map((o) => o.textContent)).toEqual(['Bench lab Wi-Fi']);
  });

  it('should send the chosen profile, and the run should carry it', async () => {
    arrangeProfiles();
    const sent = captureCreateBody();
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Poor 3G');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Network profile' }), 'SRUP 5: Poor-strength 3G');
    await user.click(screen.getByRole('button', { name: 'Create and run' }));

    expect(await screen.findByRole('heading', { name: 'Run: Poor 3G' })).toBeInTheDocument();
    expect(sent.body).toMatchObject({ kind: 'messaging', name: 'Poor 3G', network_profile: SRUP_5 });
    expect(db.experiments[0]).toMatchObject({ network_profile: SRUP_5, network_profile_name: 'SRUP 5: Poor-strength 3G' });
    const panel = await screen.findByRole('region', { name: 'Network conditions' });
    expect(within(panel).getByRole('link', { name: 'SRUP 5: Poor-strength 3G' })).toHaveAttribute(
      'href',
      `/network-profiles/${SRUP_5}`,
    );
  });

  it('should leave the profile out when none is chosen', async () => {
    arrangeProfiles();
    const sent = captureCreateBody();
    const { user } = await renderForm();

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'LAN');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('heading', { name: 'LAN' })).toBeInTheDocument();
    expect(sent.body).not.toHaveProperty('network_profile');
    expect(db.experiments[0]).toMatchObject({ network_profile: null });
  });

  it('should show the server’s network profile error next to its field', async () => {
    arrangeProfiles();
    const { user } = await renderForm();
    // The profile was deleted after the form loaded: the server no longer knows it.
    db.networkProfiles = db.networkProfiles.filter((p) => p.id !== SRUP_5);

    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Poor 3G');
    const select = screen.getByRole('combobox', { name: 'Network profile' });
    await user.selectOptions(select, 'SRUP 5: Poor-strength 3G');
    await user.click(screen.getByRole('button', { name: 'Create' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Some fields are invalid');
    expect(select).toHaveAttribute('aria-invalid', 'true');
    expect(select).toHaveAccessibleDescription(expect.stringContaining(NETWORK_PROFILE_UNKNOWN));
    expect(db.experiments).toHaveLength(0);
  });

  it('should offer no network profile for a cipher benchmark', async () => {
    arrangeProfiles();
    const { user } = await renderForm();

    await user.selectOptions(screen.getByRole('combobox', { name: 'Kind' }), 'Cipher benchmark');

    expect(screen.queryByRole('combobox', { name: 'Network profile' })).not.toBeInTheDocument();
  });

  it('should still offer the form without shaping when the profiles cannot be loaded', async () => {
    server.use(http.get('/api/network-profiles/', () => errorResponse(500, 'server_error', 'Server error.')));
    renderApp('/experiments/new');

    expect(await screen.findByRole('alert')).toHaveTextContent(/network profiles could not be loaded/);
    const select = await screen.findByRole('combobox', { name: 'Network profile' });
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['None (no shaping)']);
  });
});

describe('Experiment page: network profile', () => {
  it('should name the experiment’s profile and link to its page', async () => {
    db.experiments.push(
      experimentFixture({ network_profile: SRUP_5, network_profile_name: 'SRUP 5: Poor-strength 3G' }),
    );
    renderApp(`/experiments/${db.experiments[0]!.id}`);

    const parameters = await screen.findByRole('region', { name: 'Parameters' });
    expect(within(parameters).getByRole('link', { name: 'SRUP 5: Poor-strength 3G' })).toHaveAttribute(
      'href',
      `/network-profiles/${SRUP_5}`,
    );
  });

  it('should say there is no shaping for an experiment without a profile', async () => {
    db.experiments.push(experimentFixture());
    renderApp(`/experiments/${db.experiments[0]!.id}`);

    const parameters = await screen.findByRole('region', { name: 'Parameters' });
    expect(within(parameters).getByText('None (no shaping)')).toBeInTheDocument();
  });
});
