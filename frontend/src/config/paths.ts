// Every in-app URL is built here so routes and links cannot drift apart.
export const paths = {
  login: {
    path: '/login',
    getHref: (redirectTo?: string | null) =>
      redirectTo ? `/login?redirectTo=${encodeURIComponent(redirectTo)}` : '/login',
  },
  /** The landing page after sign-in: devices' status, recent runs, the first-run guide. */
  home: { path: '/', getHref: () => '/' },
  experiments: { path: '/experiments', getHref: () => '/experiments' },
  /** The design form; `from` clones an experiment, `preset` starts from a paper's design. */
  newExperiment: {
    path: '/experiments/new',
    getHref: ({ from, preset }: { from?: string; preset?: string } = {}) =>
      from
        ? `/experiments/new?from=${encodeURIComponent(from)}`
        : preset
          ? `/experiments/new?preset=${encodeURIComponent(preset)}`
          : '/experiments/new',
  },
  experiment: { path: '/experiments/:id', getHref: (id: string) => `/experiments/${id}` },
  /** The experiment's cells as one figure and table (issue #20). */
  experimentResults: { path: '/experiments/:id/results', getHref: (id: string) => `/experiments/${id}/results` },
  run: { path: '/runs/:id', getHref: (id: string) => `/runs/${id}` },
  /** Runs side by side; the selection is in the URL (`?run=<id>&run=<id>`), so it can be shared. */
  compare: {
    path: '/compare',
    getHref: (runIds: readonly string[] = []) =>
      `/compare${runIds.length > 0 ? `?${runIds.map((id) => `run=${encodeURIComponent(id)}`).join('&')}` : ''}`,
  },
  devices: { path: '/devices', getHref: () => '/devices' },
  power: { path: '/power', getHref: () => '/power' },
  powerTrace: { path: '/power/:id', getHref: (id: string) => `/power/${id}` },
  networkProfiles: { path: '/network-profiles', getHref: () => '/network-profiles' },
  newNetworkProfile: { path: '/network-profiles/new', getHref: () => '/network-profiles/new' },
  networkProfile: { path: '/network-profiles/:id', getHref: (id: string) => `/network-profiles/${id}` },
  /** One's own account: password and personal API tokens. */
  account: { path: '/account', getHref: () => '/account' },
  /** The current workspace's team: members, invitation links. */
  team: { path: '/team', getHref: () => '/team' },
  /** An invitation link's page (works signed out); the backend hands out the URL. */
  invite: { path: '/invite/:token', getHref: (token: string) => `/invite/${encodeURIComponent(token)}` },
  /** A shared link's public page (no login); the backend hands out the path (Share.path). */
  shared: { path: '/s/:token', getHref: (token: string) => `/s/${encodeURIComponent(token)}` },
} as const;
