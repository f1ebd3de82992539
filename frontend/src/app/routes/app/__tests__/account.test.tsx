import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { renderApp, screen, within } from '@/testing/test-utils';
import type { ApiToken, Member, PasswordChangeInput } from '@/types/api';

const token = (overrides: Partial<ApiToken> = {}): ApiToken => ({
  id: 't0000000-0000-4000-8000-000000000001',
  name: 'nightly export',
  prefix: 'isb_abcdef',
  created_at: '2025-01-02T10:00:00Z',
  last_used_at: null,
  ...overrides,
});

/** The account endpoints, faked in memory for one test. */
const fakeTokens = (initial: ApiToken[] = []) => {
  const tokens = [...initial];
  server.use(
    http.get('/api/auth/tokens/', () => HttpResponse.json(tokens)),
    http.post('/api/auth/tokens/', async ({ request }) => {
      const { name } = (await request.json()) as { name: string };
      const created = token({ id: `t0000000-0000-4000-8000-00000000000${tokens.length + 2}`, name });
      tokens.unshift(created);
      return HttpResponse.json({ ...created, key: 'isb_abcdefSECRETKEY' }, { status: 201 });
    }),
    http.delete('/api/auth/tokens/:id/', ({ params }) => {
      tokens.splice(tokens.findIndex((t) => t.id === params.id), 1);
      return new HttpResponse(null, { status: 204 });
    }),
  );
  return tokens;
};

describe('Account page', () => {
  it('should create a named token and show its key once', async () => {
    fakeTokens();
    const { user } = renderApp('/account');

    expect(await screen.findByText('No API tokens yet.')).toBeInTheDocument();
    const form = screen.getByRole('form', { name: 'New API token' });
    await user.type(within(form).getByRole('textbox', { name: 'Token name' }), 'ci script');
    await user.click(within(form).getByRole('button', { name: 'Create token' }));

    const issued = await screen.findByRole('region', { name: 'New API token' });
    expect(issued).toHaveTextContent('isb_abcdefSECRETKEY');
    expect(issued).toHaveTextContent('it is not shown again');
    const table = await screen.findByRole('table', { name: 'Your API tokens' });
    expect(within(table).getByRole('row', { name: /ci script/ })).toHaveTextContent('Never');
  });

  it('should revoke a token after a second click', async () => {
    const tokens = fakeTokens([token({ last_used_at: '2025-01-03T09:00:00Z' })]);
    const { user } = renderApp('/account');

    const row = within(await screen.findByRole('table', { name: 'Your API tokens' })).getByRole('row', {
      name: /nightly export/,
    });
    await user.click(within(row).getByRole('button', { name: 'Revoke' }));
    await user.click(within(row).getByRole('button', { name: 'Yes, revoke' }));

    expect(await screen.findByText('No API tokens yet.')).toBeInTheDocument();
    expect(tokens).toEqual([]);
  });

  it('should change the password and show the validators\' messages next to the field', async () => {
    fakeTokens();
    const sent: PasswordChangeInput[] = [];
    server.use(
      http.post('/api/auth/password/', async ({ request }) => {
        const body = (await request.json()) as PasswordChangeInput;
        sent.push(body);
        if (body.new_password.length < 8) {
          return errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', {
            fields: { new_password: ['This password is too short. It must contain at least 8 characters.'] },
          });
        }
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { user } = renderApp('/account');
    const form = await screen.findByRole('form', { name: 'Change password' });
    const fill = async (current: string, next: string, repeat: string) => {
      for (const [label, value] of [
        ['Current password', current],
        ['New password', next],
        ['Repeat the new password', repeat],
      ] as const) {
        const input = within(form).getByLabelText(label);
        await user.clear(input);
        await user.type(input, value);
      }
      await user.click(within(form).getByRole('button', { name: 'Change password' }));
    };

    await fill('old secret', 'short', 'short');
    expect(await within(form).findByText(/This password is too short/)).toBeInTheDocument();

    await fill('old secret', 'a long new passphrase', 'a long new passphrase');
    expect(await screen.findByRole('status')).toHaveTextContent('Password changed.');
    expect(sent.at(-1)).toEqual({ current_password: 'old secret', new_password: 'a long new passphrase' });
  });

  it('should be linked from the navigation, with the team page', async () => {
    fakeTokens();
    renderApp('/account');
    const nav = await screen.findByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('link', { name: 'Account' })).toHaveAttribute('href', '/account');
    expect(within(nav).getByRole('link', { name: 'Team' })).toHaveAttribute('href', '/team');
  });
});

const member = (overrides: Partial<Member>): Member => ({
  id: 1,
  user_id: 1,
  username: 'alice',
  role: 'owner',
  joined_at: '2025-01-02T10:00:00Z',
  ...overrides,
});

const fakeTeam = (members: Member[]) => {
  const list = [...members];
  server.use(
    http.get('/api/workspace/members/', () => HttpResponse.json(list)),
    http.delete('/api/workspace/members/:id/', ({ params }) => {
      list.splice(list.findIndex((m) => m.id === Number(params.id)), 1);
      return new HttpResponse(null, { status: 204 });
    }),
    http.get('/api/workspace/invitations/', () => HttpResponse.json([])),
    http.post('/api/workspace/invitations/', async ({ request }) => {
      const body = (await request.json()) as { role: string; expires_in_days: number };
      return HttpResponse.json(
        {
          id: 'i0000000-0000-4000-8000-000000000001',
          role: body.role,
          created_at: '2025-01-02T10:00:00Z',
          expires_at: '2025-01-09T10:00:00Z',
          token: 'tok',
          url: `http://testserver/invite/tok-${body.role}-${body.expires_in_days}`,
        },
        { status: 201 },
      );
    }),
    http.get('/api/workspace/', () => HttpResponse.json([])),
  );
  return list;
};

describe('Team page', () => {
  it('should let an owner create an invitation link and remove a member', async () => {
    const list = fakeTeam([member({}), member({ id: 2, user_id: 2, username: 'bob', role: 'member' })]);
    const { user } = renderApp('/team');

    const form = await screen.findByRole('form', { name: 'Invite a colleague' });
    await user.selectOptions(within(form).getByRole('combobox', { name: 'Expires after' }), '1');
    await user.click(within(form).getByRole('button', { name: 'Create invitation link' }));
    expect(await screen.findByRole('region', { name: 'New invitation link' })).toHaveTextContent(
      'http://testserver/invite/tok-member-1',
    );

    const row = within(screen.getByRole('table', { name: 'Members' })).getByRole('row', { name: /bob/ });
    await user.click(within(row).getByRole('button', { name: 'Remove' }));
    await user.click(within(row).getByRole('button', { name: 'Yes, remove' }));
    await screen.findByRole('table', { name: 'Members' });
    expect(list.map((m) => m.username)).toEqual(['alice']);
  });

  it('should show a member the team without invite or remove controls', async () => {
    fakeTeam([member({ id: 5, user_id: 9, username: 'carol' }), member({ id: 6, user_id: 1, role: 'member' })]);
    renderApp('/team');

    const table = await screen.findByRole('table', { name: 'Members' });
    const mine = within(table).getByRole('row', { name: /alice/ });
    expect(mine).toHaveTextContent('alice (you)');
    expect(mine).toHaveTextContent('Member');
    expect(await screen.findByText('Only an owner can invite or remove people.')).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'Invite a colleague' })).not.toBeInTheDocument();
    expect(within(table).queryByRole('button')).not.toBeInTheDocument();
  });
});
