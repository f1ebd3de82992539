import { describe, expect, it } from 'vitest';

import { renderApp, screen } from '@/testing/test-utils';

// One not-found page, inside the app shell, for unknown routes and unknown or malformed ids.
describe('Not-found page', () => {
  it.each([
    ['an unknown route', '/no/such/page'],
    ['a random run id', '/runs/r0000000-0000-4000-8000-00000000dead'],
    ['a malformed run id', '/runs/not-an-id'],
    ['an unknown experiment', '/experiments/e0000000-0000-4000-8000-00000000dead'],
    ['an unknown network profile', '/network-profiles/c9999999-0000-4000-8000-000000000000'],
  ])('should show the same page with the navigation and a way back for %s', async (_case, url) => {
    renderApp(url);

    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Main' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the experiments' })).toHaveAttribute('href', '/experiments');
    expect(screen.getByRole('button', { name: 'Go back' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
