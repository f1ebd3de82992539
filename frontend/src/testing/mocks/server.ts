import { setupServer } from 'msw/node';

import { handlers } from './handlers';

export const server = setupServer(...handlers);

/** Every path the app requested while `during` ran (MSW's request events). */
export const requestedPaths = async (during: () => Promise<void>): Promise<string[]> => {
  const paths: string[] = [];
  const record = ({ request }: { request: Request }) => {
    paths.push(new URL(request.url).pathname);
  };
  server.events.on('request:start', record);
  try {
    await during();
  } finally {
    server.events.removeListener('request:start', record);
  }
  return paths;
};
