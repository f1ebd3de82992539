import '@testing-library/jest-dom/vitest';
import { configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll } from 'vitest';

import { resetDb } from './mocks/db';
import { server } from './mocks/server';

// findBy*/waitFor wait up to 5 s instead of 1 s: on a loaded CI machine the first visit of a
// lazily loaded route can take longer than a second to import (a failure seen in CI).
configure({ asyncUtilTimeout: 5000 });

// Any request without a handler is a test bug: fail loudly instead of hanging.
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));

afterEach(() => {
  server.resetHandlers();
  resetDb();
  for (const cookie of document.cookie.split(';')) {
    const name = cookie.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
  }
});

afterAll(() => server.close());
