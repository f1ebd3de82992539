import { useMemo, type ComponentType } from 'react';
import { createBrowserRouter, useRouteError, type RouteObject } from 'react-router';
import { RouterProvider } from 'react-router/dom';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';

// Each route is its own chunk (bulletproof-react's router.tsx does the same).
const load = (importer: () => Promise<{ default: ComponentType }>) => async () => ({
  Component: (await importer()).default,
});

/** Shown while the first route chunk loads. */
const RouteLoading = () => (
  <main className="page">
    <Loading />
  </main>
);

/** Render errors inside a route, and failed chunk loads (e.g. after a redeploy). */
const RouteError = () => {
  const error = useRouteError();
  return (
    <main className="page">
      <ErrorAlert error={error} title="This page could not be shown." />
    </main>
  );
};

const topLevel = { HydrateFallback: RouteLoading, ErrorBoundary: RouteError } as const;

/** The route table, shared by the browser router and the tests' memory router. */
export const createAppRoutes = (): RouteObject[] => [
  { ...topLevel, path: paths.login.path, lazy: load(() => import('./routes/login')) },
  { ...topLevel, path: paths.shared.path, lazy: load(() => import('./routes/shared')) },
  { ...topLevel, path: paths.invite.path, lazy: load(() => import('./routes/invite')) },
  {
    ...topLevel,
    path: '/',
    lazy: load(() => import('./routes/app/root')),
    children: [
      { index: true, lazy: load(() => import('./routes/app/home')) },
      { path: paths.experiments.path, lazy: load(() => import('./routes/app/experiments')) },
      { path: paths.newExperiment.path, lazy: load(() => import('./routes/app/experiment-new')) },
      { path: paths.experiment.path, lazy: load(() => import('./routes/app/experiment')) },
      { path: paths.experimentResults.path, lazy: load(() => import('./routes/app/experiment-results')) },
      { path: paths.run.path, lazy: load(() => import('./routes/app/run')) },
      { path: paths.compare.path, lazy: load(() => import('./routes/app/compare')) },
      { path: paths.devices.path, lazy: load(() => import('./routes/app/devices')) },
      { path: paths.power.path, lazy: load(() => import('./routes/app/power')) },
      { path: paths.powerTrace.path, lazy: load(() => import('./routes/app/power-trace')) },
      { path: paths.networkProfiles.path, lazy: load(() => import('./routes/app/network-profiles')) },
      { path: paths.newNetworkProfile.path, lazy: load(() => import('./routes/app/network-profile-new')) },
      { path: paths.networkProfile.path, lazy: load(() => import('./routes/app/network-profile')) },
      { path: paths.account.path, lazy: load(() => import('./routes/app/account')) },
      { path: paths.team.path, lazy: load(() => import('./routes/app/team')) },
      // Unknown routes: the not-found page inside the shell (with the navigation).
      { path: '*', lazy: load(() => import('./routes/app/not-found')) },
    ],
  },
];

export const AppRouter = () => {
  const router = useMemo(() => createBrowserRouter(createAppRoutes()), []);
  return <RouterProvider router={router} />;
};
