// Every in-app URL is built here so routes and links cannot drift apart.
export const paths = {
  login: {
    path: '/login',
    getHref: (redirectTo?: string | null) =>
      redirectTo ? `/login?redirectTo=${encodeURIComponent(redirectTo)}` : '/login',
  },
  experiments: { path: '/', getHref: () => '/' },
  newExperiment: { path: '/experiments/new', getHref: () => '/experiments/new' },
  experiment: { path: '/experiments/:id', getHref: (id: string) => `/experiments/${id}` },
  run: { path: '/runs/:id', getHref: (id: string) => `/runs/${id}` },
  devices: { path: '/devices', getHref: () => '/devices' },
  power: { path: '/power', getHref: () => '/power' },
  powerTrace: { path: '/power/:id', getHref: (id: string) => `/power/${id}` },
} as const;
