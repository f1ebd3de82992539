import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { db } from '@/testing/mocks/db';
import { errorResponse } from '@/testing/mocks/handlers';
import { server } from '@/testing/mocks/server';
import { renderApp, screen } from '@/testing/test-utils';

const preview = {
  workspace_name: 'Lab',
  invited_by: 'owner',
  role: 'member',
  expires_at: '2025-01-09T10:00:00Z',
};
const USED = 'This invitation link has already been used; ask the workspace owner for a new one.';

describe('Invitation page', () => {
  it('should sign a new user up and open the workspace', async () => {
    const accepted: unknown[] = [];
    server.use(
      http.get('/api/invitations/:token/', () => HttpResponse.json(preview)),
      http.post('/api/invitations/:token/accept/', async ({ request, params }) => {
        accepted.push({ token: params.token, ...((await request.json()) as object) });
        db.session.userId = db.users[0]?.id ?? null;
        return HttpResponse.json({ id: 'w1', name: 'Lab', role: 'member', current: true }, { status: 201 });
      }),
    );
    const { user, router } = renderApp('/invite/tok123', { signedOut: true });

    expect(await screen.findByText(/invites you to the workspace/)).toHaveTextContent(
      'owner invites you to the workspace Lab as a member.',
    );
    await user.type(screen.getByRole('textbox', { name: 'Username' }), 'newcomer');
    await user.type(screen.getByLabelText('Password'), 'a long enough passphrase');
    await user.click(screen.getByRole('button', { name: 'Create account and join' }));

    await screen.findByRole('heading', { name: 'Experiments' });
    expect(router.state.location.pathname).toBe('/experiments');
    expect(accepted).toEqual([{ token: 'tok123', username: 'newcomer', password: 'a long enough passphrase' }]);
  });

  it('should let a signed-in user join with one click', async () => {
    server.use(
      http.get('/api/invitations/:token/', () => HttpResponse.json(preview)),
      http.post('/api/invitations/:token/accept/', () =>
        HttpResponse.json({ id: 'w1', name: 'Lab', role: 'member', current: true }, { status: 201 }),
      ),
    );
    const { user, router } = renderApp('/invite/tok123');

    await user.click(await screen.findByRole('button', { name: 'Join Lab as alice' }));

    await screen.findByRole('heading', { name: 'Experiments' });
    expect(router.state.location.pathname).toBe('/experiments');
  });

  it('should say clearly when the link was already used', async () => {
    server.use(
      http.get('/api/invitations/:token/', () => errorResponse(410, 'invitation_invalid', USED, { reason: 'used' })),
    );
    renderApp('/invite/tok123', { signedOut: true });

    expect(await screen.findByRole('alert')).toHaveTextContent(`This invitation cannot be used. ${USED}`);
    expect(screen.queryByRole('button', { name: /join/i })).not.toBeInTheDocument();
  });
});
