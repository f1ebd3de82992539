import { http } from 'msw';
import { expect } from 'vitest';

import { server } from './mocks/server';
import { renderApp, screen } from './test-utils';

/** Renders the new-experiment page and waits for its form, devices included. */
export const renderNewExperimentForm = async () => {
  const view = renderApp('/experiments/new');
  expect(await screen.findByRole('heading', { name: 'New experiment' })).toBeInTheDocument();
  await screen.findByRole('group', { name: 'Devices' });
  return view;
};

/** Records the body of each POST /api/experiments/ (the fake backend still answers it). */
export const captureCreateBody = () => {
  const sent: { body?: unknown } = {};
  server.use(
    http.post('/api/experiments/', async ({ request }) => {
      sent.body = await request.clone().json();
      // Falls through to the fake backend's handler.
    }),
  );
  return sent;
};
