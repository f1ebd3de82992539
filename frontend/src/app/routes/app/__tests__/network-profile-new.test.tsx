import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { db, networkCatalogueFixture, networkProfileFixture } from '@/testing/mocks/db';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { NetworkProfileInput } from '@/types/api';

/** Every POST body of a new profile (the fake backend answers as usual). */
const recordCreates = () => {
  const sent: NetworkProfileInput[] = [];
  server.use(
    http.post('/api/network-profiles/', async ({ request }) => {
      sent.push((await request.clone().json()) as NetworkProfileInput);
      // Falls through to the fake backend's handler.
    }),
  );
  return sent;
};

describe('New network profile page', () => {
  it('should start unshaped and create a profile with no shaping, then open it', async () => {
    const sent = recordCreates();
    const { user, router } = renderApp('/network-profiles/new');

    const form = await screen.findByRole('form', { name: 'New profile' });
    expect(within(form).getByRole('radio', { name: 'Both directions alike' })).toBeChecked();
    const both = within(form).getByRole('group', { name: 'Both directions' });
    expect(within(both).getByRole('spinbutton', { name: 'Delay (ms)' })).toHaveValue(0);
    expect(within(both).getByRole('spinbutton', { name: 'Queue limit (packets)' })).toHaveValue(1000);
    expect(within(both).getByRole('combobox', { name: 'Distribution' })).toHaveDisplayValue('normal');

    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'Plain LAN');
    await user.click(within(form).getByRole('button', { name: 'Create profile' }));

    expect(await screen.findByRole('heading', { name: 'Network profile: Plain LAN' })).toBeInTheDocument();
    expect(sent).toEqual([{ name: 'Plain LAN', description: '', citation: '', spec: {} }]);
    const created = db.networkProfiles.find((p) => p.name === 'Plain LAN');
    expect(router.state.location.pathname).toBe(`/network-profiles/${created?.id}`);
    expect(screen.getByText('Not shaped: packets pass as on the LAN, in both directions.')).toBeInTheDocument();
  });

  it('should create a profile shaping each direction on its own, with a measured table chosen from the catalogue', async () => {
    db.networkProfiles.push(...networkCatalogueFixture());
    const sent = recordCreates();
    const { user } = renderApp('/network-profiles/new');

    const form = await screen.findByRole('form', { name: 'New profile' });
    await user.type(within(form).getByRole('textbox', { name: 'Name' }), 'Poor 3G uplink');
    await user.type(within(form).getByRole('textbox', { name: 'Source' }), 'our field trial, 2026-11');
    const rate = within(within(form).getByRole('group', { name: 'Both directions' })).getByRole('spinbutton', {
      name: 'Rate (kbit/s)',
    });
    await user.clear(rate);
    await user.type(rate, '115');
    await user.click(within(form).getByRole('radio', { name: 'Each direction on its own' }));

    // Both directions start from the shared settings.
    const egress = within(form).getByRole('group', { name: 'Egress (device → platform)' });
    const ingress = within(form).getByRole('group', { name: 'Ingress (platform → device)' });
    expect(within(ingress).getByRole('spinbutton', { name: 'Rate (kbit/s)' })).toHaveValue(115);
    await user.clear(within(ingress).getByRole('spinbutton', { name: 'Rate (kbit/s)' }));

    for (const [label, value] of [
      ['Delay (ms)', '122.65'],
      ['Jitter (ms)', '40.36'],
      ['Loss (%)', '2'],
    ] as const) {
      const input = within(egress).getByRole('spinbutton', { name: label });
      await user.clear(input);
      await user.type(input, value);
    }
    await user.selectOptions(within(egress).getByRole('combobox', { name: 'Distribution' }), 'measured table');
    const table = await within(egress).findByRole('combobox', { name: 'Table' });
    expect(await within(table).findByRole('option', { name: 'TIM.bad.3G.no_roaming' })).toBeInTheDocument();
    await user.selectOptions(table, 'TIM.bad.3G.no_roaming');
    await user.click(within(form).getByRole('button', { name: 'Create profile' }));

    expect(await screen.findByRole('heading', { name: 'Network profile: Poor 3G uplink' })).toBeInTheDocument();
    expect(sent).toEqual([
      {
        name: 'Poor 3G uplink',
        description: '',
        citation: 'our field trial, 2026-11',
        spec: {
          egress: {
            rate_kbit: 115,
            delay_ms: 122.65,
            jitter_ms: 40.36,
            distribution: 'table',
            table: 'TIM.bad.3G.no_roaming',
            loss_pct: 2,
          },
        },
      },
    ]);
  });

  it('should show the server\'s name error next to the name, and require a name before sending', async () => {
    db.networkProfiles.push(networkProfileFixture({ name: 'Lab uplink' }));
    const sent = recordCreates();
    const { user } = renderApp('/network-profiles/new');
    const form = await screen.findByRole('form', { name: 'New profile' });
    const name = within(form).getByRole('textbox', { name: 'Name' });

    await user.click(within(form).getByRole('button', { name: 'Create profile' }));
    expect(name).toHaveAccessibleDescription('Give the profile a name.');
    expect(sent).toEqual([]);

    await user.type(name, 'Lab uplink');
    await user.click(within(form).getByRole('button', { name: 'Create profile' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent(
      'Some fields are invalid: correct them and send again.',
    );
    expect(name).toHaveAccessibleDescription(
      'Your workspace already has a profile named “Lab uplink”: choose another name.',
    );
  });
});
