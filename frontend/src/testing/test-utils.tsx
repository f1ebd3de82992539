import { QueryClient } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
// RouterProvider from 'react-router', not 'react-router/dom': under Vitest the latter
// resolves to the ESM build while app code gets the CJS build, and two copies of the
// router do not share context. The DOM variant only adds flushSync, unneeded here.
import { createMemoryRouter, RouterProvider } from 'react-router';

import { AppProvider } from '@/app/provider';
import { createAppRoutes } from '@/app/router';

import { db } from './mocks/db';

export const createTestQueryClient = () =>
  new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });

type RenderAppOptions = {
  /** Start signed out (the default is signed in as testUser). */
  signedOut?: boolean;
};

/** Renders the whole app (real routes, real providers) at `url`, against the MSW fake backend. */
export const renderApp = (url: string, { signedOut = false }: RenderAppOptions = {}) => {
  if (signedOut) db.session.userId = null;
  const router = createMemoryRouter(createAppRoutes(), { initialEntries: [url] });
  const queryClient = createTestQueryClient();
  const user = userEvent.setup();
  const view = render(
    <AppProvider queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProvider>,
  );
  return { ...view, user, router, queryClient };
};

export * from '@testing-library/react';
