import { describe, expect, it } from 'vitest';

import { db, TEST_CSRF_TOKEN, TEST_PASSWORD } from '@/testing/mocks/db';
import { renderApp, screen } from '@/testing/test-utils';

describe('Login', () => {
  it('should sign in and land on the home page', async () => {
    const { user, router } = renderApp('/login', { signedOut: true });

    await user.type(await screen.findByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), TEST_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { name: 'Home', level: 1 })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/');
    expect(screen.getByText('alice')).toBeInTheDocument();
    // The login POST carried the token from GET /api/auth/csrf/.
    expect(db.csrfHeaders).toEqual([TEST_CSRF_TOKEN]);
  });

  it('should show the server message for invalid credentials', async () => {
    const { user } = renderApp('/login', { signedOut: true });

    await user.type(await screen.findByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), 'wrong');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Invalid username or password.');
    expect(screen.getByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
  });

  it('should ask for missing credentials without calling the server', async () => {
    const { user } = renderApp('/login', { signedOut: true });

    await user.click(await screen.findByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('alert')).toHaveTextContent('Enter your username. Enter your password.');
    expect(screen.getByLabelText('Username')).toHaveAccessibleDescription('Enter your username.');
    expect(db.csrfHeaders).toHaveLength(0);
  });

  it('should send a signed-out visitor to the login page and back after signing in', async () => {
    const { user, router } = renderApp('/devices', { signedOut: true });

    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.search).toBe('?redirectTo=%2Fdevices');

    await user.type(screen.getByLabelText('Username'), 'alice');
    await user.type(screen.getByLabelText('Password'), TEST_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Sign in' }));

    expect(await screen.findByRole('heading', { name: 'Devices' })).toBeInTheDocument();
  });

  it('should sign out from the header', async () => {
    const { user, router } = renderApp('/');

    await user.click(await screen.findByRole('button', { name: 'Sign out' }));

    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
    expect(db.session.userId).toBeNull();
  });
});
