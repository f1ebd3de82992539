import { http, HttpResponse } from 'msw';

import type {
  DesignAxis,
  DesignExclusion,
  DesignPlan,
  Device,
  ErrorEnvelope,
  Experiment,
  ExperimentInput,
  NetworkProfileCopy,
  NetworkProfileDetail,
  NetworkProfileInput,
  NetworkProfileUpdate,
  PowerBatteryReading,
  PowerBatteryReadingInput,
  PowerTrace,
  PowerTraceUpdate,
  Run,
  Share,
  ShareInput,
  ShareUpdate,
} from '@/types/api';

import {
  catalogueFixture,
  db,
  experimentInputDefaults,
  powerTraceFixture,
  TEST_CSRF_TOKEN,
  TEST_PASSWORD,
} from './db';
import { canonicalAxes, cellLabel, designErrors, expandCells } from './matrix';

/** The backend's experiments.matrix.ORDER_SEED_MAX (2^31 - 1). */
const ORDER_SEED_MAX = 2_147_483_647;

/**
 * A small fake of the Django API: same URLs, status codes and error envelope.
 * Route tests override single endpoints with server.use(...).
 */

export const errorResponse = (
  status: number,
  code: string,
  message: string,
  extra: Record<string, unknown> = {},
) => HttpResponse.json<ErrorEnvelope>({ message, code, extra }, { status });

const notAuthenticated = () =>
  errorResponse(401, 'not_authenticated', 'Authentication credentials were not provided.');

const notFound = () => errorResponse(404, 'not_found', 'Not found.');

const currentUser = () => db.users.find((u) => u.id === db.session.userId) ?? null;

const checkCsrf = (request: Request) => {
  const header = request.headers.get('X-CSRFToken');
  db.csrfHeaders.push(header);
  return header === TEST_CSRF_TOKEN
    ? null
    : errorResponse(403, 'permission_denied', 'CSRF Failed: CSRF token missing.');
};

let nextId = 1;
const newId = () => `00000000-0000-4000-8000-${String(nextId++).padStart(12, '0')}`;

/** The seed of every messaging run's random intervals (the backend draws 32 random bits). */
export const TEST_INTERVAL_SEED = 3_141_592_653;

/** What a run is dispatched with, as the backend's experiments/services/designs.py freezes it. */
const runSpec = (experiment: Omit<Experiment, 'runs'>): Run['spec'] => {
  // The contract's to_dict: crypto_library only when not the default.
  const library = experiment.crypto_library === 'pycryptodome' ? {} : { crypto_library: experiment.crypto_library };
  switch (experiment.kind) {
    case 'cipher_bench':
      return {
        mechanisms: experiment.mechanisms,
        data_sizes: experiment.data_sizes,
        repetitions: experiment.repetitions,
        ...library,
      };
    case 'throughput':
      return {
        mechanisms: experiment.mechanisms,
        data_sizes: experiment.data_sizes,
        repetitions: experiment.repetitions,
        window_ms: experiment.window_ms,
        ...(experiment.target_url ? { target: experiment.target_url } : {}),
        ...library,
      };
    case 'messaging':
      return {
        protocol: experiment.protocol,
        mqtt_version: experiment.mqtt_version,
        transport: experiment.transport,
        qos: experiment.qos,
        security: experiment.security,
        payload_size: experiment.payload_size,
        message_count: experiment.message_count,
        interval_ms: experiment.interval_ms,
        interval_distribution: experiment.interval_distribution,
        interval_seed: TEST_INTERVAL_SEED,
        measurement: experiment.measurement,
        ...networkProfileSpec(experiment),
      };
  }
};

/** A messaging run freezes its experiment's network profile: id, name and spec. */
const networkProfileSpec = (experiment: Omit<Experiment, 'runs'>): Run['spec'] => {
  const profile = db.networkProfiles.find((p) => p.id === experiment.network_profile);
  return profile ? { network_profile: { id: profile.id, name: profile.name, spec: profile.spec } } : {};
};

// The backend's messages (experiments/apis/experiments.py, experiments/rules.py): an unknown
// profile, or one on another kind.
export const NETWORK_PROFILE_UNKNOWN =
  "No network profile with this id among the built-in ones and your workspace's: pick one from the Network page.";
export const NETWORK_PROFILE_MESSAGING =
  'A network profile shapes the messages of a messaging experiment; a cipher benchmark or throughput run has none: leave it empty.';

export const handlers = [
  http.get('/api/auth/csrf/', () =>
    HttpResponse.json(
      { csrf_token: TEST_CSRF_TOKEN },
      { headers: { 'Set-Cookie': `csrftoken=${TEST_CSRF_TOKEN}; Path=/` } },
    ),
  ),

  http.post('/api/auth/login/', async ({ request }) => {
    const csrfError = checkCsrf(request);
    if (csrfError) return csrfError;
    const body = (await request.json()) as { username?: string; password?: string };
    const user = db.users.find((u) => u.username === body.username);
    if (!user || body.password !== TEST_PASSWORD) {
      return errorResponse(400, 'invalid_credentials', 'Invalid username or password.');
    }
    db.session.userId = user.id;
    return HttpResponse.json(user);
  }),

  http.post('/api/auth/logout/', ({ request }) => {
    const csrfError = checkCsrf(request);
    if (csrfError) return csrfError;
    db.session.userId = null;
    return new HttpResponse(null, { status: 204 });
  }),

  http.get('/api/auth/me/', () => {
    const user = currentUser();
    return user ? HttpResponse.json(user) : notAuthenticated();
  }),

  http.get('/api/devices/', () => {
    if (!currentUser()) return notAuthenticated();
    const devices = structuredClone(db.devices);
    finishHealthChecks();
    return HttpResponse.json(devices);
  }),

  http.post('/api/devices/enrollment-tokens/', ({ request }) => {
    if (!currentUser()) return notAuthenticated();
    const csrfError = checkCsrf(request);
    if (csrfError) return csrfError;
    return HttpResponse.json(
      { token: 'enroll-abc123', expires_at: '2030-01-01T00:00:00Z' },
      { status: 201 },
    );
  }),

  http.get('/api/catalogue/', () =>
    currentUser() ? HttpResponse.json(catalogueFixture) : notAuthenticated(),
  ),

  ...experimentHandlers(),

  ...runHandlers(),

  ...presetHandlers(),

  ...deviceHealthHandlers(),

  ...deviceRevokeHandlers(),

  ...resultsHandlers(),

  ...sharingHandlers(),

  ...powerHandlers(),

  ...networkProfileHandlers(),
];

const validationError = (fields: Record<string, string[]>) =>
  errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', { fields });

type DesignBody = Pick<ExperimentInput, 'device_ids'> & Partial<ExperimentInput>;

/**
 * The checks POST /api/experiments/ and /plan/ share: the network profile, the matrix's
 * combinations (experiments/rules.py), the run limit. Field errors, or the expanded design.
 */
type CheckedDesign =
  | { errors: Record<string, string[]> }
  | {
      profile: NetworkProfileDetail | undefined;
      axes: DesignAxis[];
      exclusions: DesignExclusion[];
      cells: Record<string, unknown>[];
      excluded: number;
      repeats: number;
    };

const checkDesign = (input: DesignBody): CheckedDesign => {
  const profileId = input.network_profile ?? null;
  const profile = db.networkProfiles.find((p) => p.id === profileId);
  if (profileId !== null && (input.kind ?? 'messaging') !== 'messaging') {
    return { errors: { network_profile: [NETWORK_PROFILE_MESSAGING] } };
  }
  if (profileId !== null && !profile) return { errors: { network_profile: [NETWORK_PROFILE_UNKNOWN] } };
  const axes = canonicalAxes(input.axes);
  const exclusions = input.exclusions ?? [];
  const { cells, excluded } = expandCells(axes, exclusions);
  const errors = designErrors(input, cells, axes);
  const repeats = input.repeats ?? 1;
  if (cells.length * repeats > MATRIX_RUNS_MAX) {
    errors.repeats = [`The design expands to ${cells.length * repeats} runs; at most ${MATRIX_RUNS_MAX}.`];
  }
  if (cells.length === 0) errors.exclusions = ['The exclusions remove every combination.'];
  // The backend's ExperimentInputSerializer.order_seed bounds (DRF's words).
  if (input.order_seed != null && input.order_seed > ORDER_SEED_MAX) {
    errors.order_seed = [`Ensure this value is less than or equal to ${ORDER_SEED_MAX}.`];
  }
  if (Object.keys(errors).length > 0) return { errors };
  return { profile, axes, exclusions, cells, excluded, repeats };
};

/** The seconds the fake estimates per run: one per message (a simple stand-in for experiments/estimate.py). */
const PLAN_SECONDS_PER_RUN = 60;
/**
 * The seed the fake "draws" for a design without one (the backend draws a fresh one per
 * plan): a multiple of every small matrix's size, so an unseeded plan keeps the matrix order.
 */
export const PLAN_DRAWN_SEED = 720;
/** The backend's experiments.models.MATRIX_RUNS_MAX. */
export const MATRIX_RUNS_MAX = 1000;

/** A run of the experiment, queued at `position` (the backend's experiment_start). */
const queueRun = (experiment: Experiment, cell: Record<string, unknown>, repeat: number, position: number): Run => {
  const now = new Date().toISOString();
  const run: Run = {
    id: newId(),
    experiment: { id: experiment.id, name: experiment.name },
    kind: experiment.kind,
    status: 'queued',
    error: '',
    spec: runSpec({ ...experiment, ...cell }),
    cell,
    cell_label: Object.keys(cell).length > 0 ? cellLabel(cell) : '',
    // The backend's Run.label: the cell's parameters, then the repeat when the design repeats.
    label:
      [Object.keys(cell).length > 0 ? cellLabel(cell) : '', experiment.repeats > 1 ? `repeat ${repeat}` : '']
        .filter(Boolean)
        .join(' · ') || `run of ${now.slice(0, 16).replace('T', ' ')}`,
    repeat,
    position,
    // The fake keeps the matrix order (no shuffle); the backend shuffles within each repeat block.
    order_seed: experiment.order_seed ?? 0,
    retry_of: null,
    transitions: [{ status: 'queued', at: now }],
    queued_at: now,
    created_at: now,
    started_at: null,
    finished_at: null,
    devices: [],
    summary: [],
    bench_summary: [],
    waiting_for: null,
    target: null,
  };
  db.runs.push(run);
  experiment.runs.push(briefOf(run));
  return run;
};

const briefOf = (run: Run): Experiment['runs'][number] => ({
  id: run.id,
  status: run.status,
  cell_label: run.cell_label,
  label: run.label,
  repeat: run.repeat,
  position: run.position,
  order_seed: run.order_seed,
  error: run.error,
  created_at: run.created_at,
  started_at: run.started_at,
  finished_at: run.finished_at,
  waiting_for: run.waiting_for?.message ?? null,
});

const FINISHED: readonly Run['status'][] = ['done', 'failed', 'cancelled'];

/** Changes a run's status as the backend's trigger does: the status, a transition, the experiment's brief. */
export const setRunStatus = (run: Run, status: Run['status'], error = '') => {
  run.status = status;
  run.error = error;
  run.transitions = [...run.transitions, { status, at: new Date().toISOString() }];
  if (FINISHED.includes(status)) run.finished_at = new Date().toISOString();
  const experiment = db.experiments.find((e) => e.id === run.experiment.id);
  const brief = experiment?.runs.find((r) => r.id === run.id);
  if (brief) Object.assign(brief, briefOf(run));
};

/** GET /api/experiments/'s filters (issue #6), on the fake's experiments. */
const experimentMatches = (experiment: Experiment, search: URLSearchParams) => {
  const q = search.get('q')?.toLowerCase();
  const protocol = search.get('protocol');
  const mechanism = search.get('mechanism');
  const device = search.get('device');
  const status = search.get('status');
  const after = search.get('created_after');
  const before = search.get('created_before');
  const latest = experiment.runs.reduce<Experiment['runs'][number] | undefined>(
    (last, run) => (!last || run.created_at > last.created_at ? run : last),
    undefined,
  );
  return (
    (!q || `${experiment.name} ${experiment.description}`.toLowerCase().includes(q)) &&
    (!protocol || experiment.protocol === protocol) &&
    (!mechanism || experiment.security === mechanism || experiment.mechanisms.includes(mechanism as never)) &&
    (!device || experiment.device_ids.includes(device)) &&
    (!status || (status === 'never' ? !latest : latest?.status === status)) &&
    (!after || experiment.created_at.slice(0, 10) >= after) &&
    (!before || experiment.created_at.slice(0, 10) <= before)
  );
};

/** Experiments, their matrix, plan, start, YAML import and export. */
function experimentHandlers() {
  return [
    http.get('/api/experiments/', ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const search = new URL(request.url).searchParams;
      return HttpResponse.json(db.experiments.filter((e) => experimentMatches(e, search)));
    }),

    http.post('/api/experiments/plan/', async ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const body = (await request.json()) as DesignBody;
      const checked = checkDesign(body);
      if ('errors' in checked) return validationError(checked.errors);
      const seed = body.order_seed ?? PLAN_DRAWN_SEED;
      // A stand-in for the backend's shuffle: each repeat block rotated by the seed.
      const shift = seed % checked.cells.length;
      const block = [...checked.cells.slice(shift), ...checked.cells.slice(0, shift)];
      const runs = Array.from({ length: checked.repeats }, (_, r) => r + 1).flatMap((repeat) =>
        block.map((cell) => ({ repeat, cell })),
      );
      const seconds = runs.length * PLAN_SECONDS_PER_RUN;
      const plan: DesignPlan = {
        run_count: runs.length,
        cells: checked.cells.length,
        excluded: checked.excluded,
        repeats: checked.repeats,
        order_seed: seed,
        estimated_seconds: seconds,
        estimated: `${seconds / 60} min`,
        warnings: db.planWarnings,
        runs: runs.slice(0, 200).map(({ repeat, cell }, position) => ({
          position,
          repeat,
          label: Object.keys(cell).length > 0 ? cellLabel(cell) : '',
          cell,
          estimated_seconds: PLAN_SECONDS_PER_RUN,
        })),
      };
      return HttpResponse.json(plan);
    }),

    http.post('/api/experiments/', async ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      // A request may leave out any field the server defaults.
      const input = (await request.json()) as DesignBody & Pick<ExperimentInput, 'name'>;
      const checked = checkDesign(input);
      if ('errors' in checked) return validationError(checked.errors);
      const experiment: Experiment = {
        id: newId(),
        ...experimentInputDefaults(),
        ...input,
        axes: checked.axes,
        exclusions: checked.exclusions,
        network_profile: input.network_profile ?? null,
        network_profile_name: checked.profile?.name ?? null,
        created_at: new Date().toISOString(),
        runs: [],
      };
      db.experiments.push(experiment);
      return HttpResponse.json(experiment, { status: 201 });
    }),

    http.post('/api/experiments/import/', async ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const file = (await request.formData()).get('file');
      if (file === null || typeof file === 'string') return validationError({ file: ['No file was submitted.'] });
      // jsdom's XMLHttpRequest sends no file contents: tests arrange refusals with server.use.
      const name = IMPORTED_DESIGN_NAME;
      const experiment: Experiment = {
        id: newId(),
        ...experimentInputDefaults(),
        name,
        device_ids: [],
        network_profile_name: null,
        created_at: new Date().toISOString(),
        runs: [],
      };
      db.experiments.push(experiment);
      return HttpResponse.json(experiment, { status: 201 });
    }),

    http.get('/api/experiments/:id/', ({ params }) => {
      if (!currentUser()) return notAuthenticated();
      const experiment = db.experiments.find((e) => e.id === params.id);
      return experiment ? HttpResponse.json(experiment) : notFound();
    }),

    // Queues every run of the matrix (combinations x repeats) and answers the first.
    http.post('/api/experiments/:id/runs/', ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const experiment = db.experiments.find((e) => e.id === params.id);
      if (!experiment) return notFound();
      const unfinished = experiment.runs.find((run) => !FINISHED.includes(run.status));
      if (unfinished) {
        return errorResponse(409, 'run_already_active', RUN_ALREADY_ACTIVE.replace('{run_id}', unfinished.id));
      }
      const axes = canonicalAxes(experiment.axes as Record<string, unknown>[]);
      const { cells } = expandCells(axes, experiment.exclusions as Record<string, unknown>[]);
      const order = Array.from({ length: experiment.repeats }, (_, r) => r + 1).flatMap((repeat) =>
        cells.map((cell) => ({ repeat, cell })),
      );
      const runs = order.map(({ repeat, cell }, position) => queueRun(experiment, cell, repeat, position));
      return HttpResponse.json(runs[0], { status: 201 });
    }),
  ];
}

/** The name of every experiment the fake imports from a design file. */
export const IMPORTED_DESIGN_NAME = 'Imported design';

// The backend's messages (experiments/services/scheduling.py).
export const RUN_ALREADY_ACTIVE =
  'This experiment already has runs queued or in progress (the next is {run_id}): wait for them to finish, or cancel them, before starting it again.';

/** A run, its cancel and its retry. */
function runHandlers() {
  return [
    http.get('/api/runs/:id/', ({ params }) => {
      if (!currentUser()) return notAuthenticated();
      const run = db.runs.find((r) => r.id === params.id);
      return run ? HttpResponse.json(run) : notFound();
    }),

    http.post('/api/runs/:id/cancel/', ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const run = db.runs.find((r) => r.id === params.id);
      if (!run) return notFound();
      if (FINISHED.includes(run.status)) {
        return errorResponse(409, 'run_not_cancellable', `This run is ${run.status}: there is nothing to cancel.`);
      }
      setRunStatus(run, 'cancelled', `Cancelled by ${currentUser()?.username ?? 'someone'}.`);
      return HttpResponse.json(run);
    }),

    http.post('/api/runs/:id/retry/', ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const run = db.runs.find((r) => r.id === params.id);
      const experiment = db.experiments.find((e) => e.id === run?.experiment.id);
      if (!run || !experiment) return notFound();
      if (run.status !== 'failed' && run.status !== 'cancelled') {
        return errorResponse(409, 'run_not_retryable', `This run is ${run.status}: only a failed or cancelled run can be retried.`);
      }
      const retry = queueRun(experiment, run.cell, run.repeat, run.position);
      // The backend copies the run's label and spec as they were frozen.
      Object.assign(retry, { retry_of: run.id, cell_label: run.cell_label });
      setRunStatus(retry, 'queued');
      return HttpResponse.json(retry, { status: 201 });
    }),
  ];
}

/** GET /api/presets/ (issue #6's contract, until the backend serves it). */
function presetHandlers() {
  return [http.get('/api/presets/', () => (currentUser() ? HttpResponse.json(db.presets) : notAuthenticated()))];
}

/** A device's health check: started as pending, finished (db.healthResults) on the next read. */
function deviceHealthHandlers() {
  return [
    http.post('/api/devices/:id/health-check/', ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const index = db.devices.findIndex((d) => d.id === params.id);
      const device = db.devices[index];
      if (!device) return notFound();
      const checking: Device = {
        ...device,
        health: { status: 'pending', requested_at: new Date().toISOString(), checks: [], error: '' },
      };
      db.devices[index] = checking;
      return HttpResponse.json(checking, { status: 202 });
    }),
  ];
}

// The backend's message (devices/services.py DEVICE_BUSY_MESSAGE).
export const deviceBusyMessage = (name: string, runIds: readonly string[]) =>
  `${name} has queued or running runs (${runIds.join(', ')}); cancel them before revoking the device.`;

/** Revoking a device: refused while a run that is not finished uses it; else it leaves the list. */
function deviceRevokeHandlers() {
  return [
    http.post('/api/devices/:id/revoke/', ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const device = db.devices.find((d) => d.id === params.id);
      if (!device) return notFound();
      const busy = db.runs
        .filter((run) => !FINISHED.includes(run.status) && run.devices.some((d) => d.device_id === device.id))
        .slice(0, 3);
      if (busy.length > 0) {
        return errorResponse(409, 'device_busy', deviceBusyMessage(device.name, busy.map((run) => run.id)));
      }
      db.devices = db.devices.filter((d) => d.id !== device.id);
      return new HttpResponse(null, { status: 204 });
    }),
  ];
}

/** The agent answers between two reads of the device: the next one sees its result. */
const finishHealthChecks = () => {
  db.devices = db.devices.map((device) => {
    const result = db.healthResults[device.id];
    return device.health?.status === 'pending' && result ? { ...device, health: result } : device;
  });
};

/** Results of messaging runs (docs/results.md): statistics, plot data, methods, comparison. */
function resultsHandlers() {
  /** The run's result from `table`, or the backend's error for it. `anyKind`: the methods
   * paragraph (and the exports) answer every kind of run, not only messaging runs. */
  const resultOf = <T,>(id: unknown, table: Record<string, T>, { anyKind = false } = {}) => {
    if (!currentUser()) return notAuthenticated();
    const run = db.runs.find((r) => r.id === id);
    if (!run) return notFound();
    if (!anyKind && run.kind !== 'messaging') {
      return errorResponse(400, 'run_has_no_round_trips', 'This run has no round trips: it is not a messaging run.');
    }
    const result = table[String(id)];
    return result === undefined ? notFound() : HttpResponse.json(result);
  };

  return [
    http.get('/api/runs/:id/statistics/', ({ params }) => resultOf(params.id, db.statistics)),
    http.get('/api/runs/:id/distribution/', ({ params }) => resultOf(params.id, db.distributions)),
    http.get('/api/runs/:id/methods/', ({ params }) => resultOf(params.id, db.methods, { anyKind: true })),
    http.get('/api/runs/:id/sizes/', ({ params }) => resultOf(params.id, db.sizes)),
    http.get('/api/compare/', () => {
      if (!currentUser()) return notAuthenticated();
      return db.comparison ? HttpResponse.json(db.comparison) : notFound();
    }),
  ];
}

/** Shared links (docs/sharing.md): the owner's API, and the public one (no login). */
function sharingHandlers() {
  const shareNotFound = () =>
    errorResponse(404, 'share_not_found', 'This link does not lead to anything: it may have been revoked or have expired.');
  /** A public result: the token must be live; the run's result comes from the signed-in tables. */
  const publicResultOf = <T,>(token: unknown, id: unknown, table: Record<string, T>) => {
    if (!db.sharedContent[String(token)]) return shareNotFound();
    const result = table[String(id)];
    return result === undefined ? shareNotFound() : HttpResponse.json(result);
  };

  return [
    http.get('/api/shares/', ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const run = new URL(request.url).searchParams.get('run');
      const experiment = new URL(request.url).searchParams.get('experiment');
      return HttpResponse.json(
        db.shares.filter(
          (share) =>
            (!run || share.run_id === run || share.run_ids.includes(run)) &&
            (!experiment || share.experiment_id === experiment),
        ),
      );
    }),
    http.post('/api/shares/', async ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const input = (await request.json()) as ShareInput;
      const token = `token-${String(nextId++)}`;
      const share: Share = {
        id: newId(),
        kind: input.kind,
        title: input.title ?? '',
        path: `/s/${token}`,
        run_id: input.run ?? null,
        experiment_id: input.experiment ?? null,
        run_ids: input.runs ?? [],
        state: 'active',
        created_at: '2025-01-06T10:00:00Z',
        created_by: currentUser()?.username ?? null,
        expires_at: input.expires_at ?? null,
        revoked_at: null,
        views: 0,
        last_viewed_at: null,
      };
      db.shares.unshift(share);
      return HttpResponse.json(share, { status: 201 });
    }),
    http.patch('/api/shares/:id/', async ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const share = db.shares.find((s) => s.id === params.id);
      if (!share) return notFound();
      Object.assign(share, (await request.json()) as ShareUpdate);
      return HttpResponse.json(share);
    }),
    http.post('/api/shares/:id/revoke/', ({ params }) => {
      if (!currentUser()) return notAuthenticated();
      const share = db.shares.find((s) => s.id === params.id);
      if (!share) return notFound();
      Object.assign(share, { state: 'revoked', revoked_at: '2025-01-06T11:00:00Z' } satisfies Partial<Share>);
      return HttpResponse.json(share);
    }),

    http.get('/api/public/shares/:token/', ({ params }) => {
      const content = db.sharedContent[String(params.token)];
      return content ? HttpResponse.json(content) : shareNotFound();
    }),
    http.get('/api/public/shares/:token/runs/:id/statistics/', ({ params }) =>
      publicResultOf(params.token, params.id, db.statistics),
    ),
    http.get('/api/public/shares/:token/runs/:id/distribution/', ({ params }) =>
      publicResultOf(params.token, params.id, db.distributions),
    ),
    http.get('/api/public/shares/:token/runs/:id/methods/', ({ params }) =>
      publicResultOf(params.token, params.id, db.methods),
    ),
    http.get('/api/public/shares/:token/runs/:id/sizes/', ({ params }) =>
      publicResultOf(params.token, params.id, db.sizes),
    ),
    http.get('/api/public/shares/:token/results/', ({ params }) => {
      const results = db.sharedResults[String(params.token)];
      return results ? HttpResponse.json(results) : shareNotFound();
    }),
    http.get('/api/public/shares/:token/compare/', ({ params }) => {
      if (!db.sharedContent[String(params.token)]) return shareNotFound();
      return db.comparison ? HttpResponse.json(db.comparison) : shareNotFound();
    }),
  ];
}

/** Power traces (docs/power-traces.md). Before /:id/ so "projection" is not taken for an id. */
function powerHandlers() {
  const findTrace = (id: unknown) => db.powerTraces.find((t) => t.id === id);
  const text = (value: FormDataEntryValue | null) => (typeof value === 'string' ? value : '');

  return [
    http.get('/api/power-traces/battery-readings/', ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const run = new URL(request.url).searchParams.get('run');
      return HttpResponse.json(db.batteryReadings.filter((r) => run === null || r.run === run));
    }),

    http.post('/api/power-traces/battery-readings/', async ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const body = (await request.json()) as PowerBatteryReadingInput;
      const reading: PowerBatteryReading = {
        id: `b0000000-0000-4000-8000-${String(db.batteryReadings.length + 1).padStart(12, '0')}`,
        run: body.run,
        device: body.device ?? null,
        device_name: null,
        charge_mah: body.charge_mah,
        voltage_v: body.voltage_v,
        // As power.energy.mah_to_joules: mAh x 3.6 x V.
        energy_j: body.charge_mah * 3.6 * body.voltage_v,
        created_at: '2025-01-03T10:00:00Z',
      };
      db.batteryReadings = [
        ...db.batteryReadings.filter((r) => !(r.run === reading.run && r.device === reading.device)),
        reading,
      ];
      return HttpResponse.json(reading, { status: 201 });
    }),

    http.delete('/api/power-traces/battery-readings/:id/', ({ request, params }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const before = db.batteryReadings.length;
      db.batteryReadings = db.batteryReadings.filter((r) => r.id !== params.id);
      if (db.batteryReadings.length === before) return HttpResponse.json({ detail: 'Not found.' }, { status: 404 });
      return new HttpResponse(null, { status: 204 });
    }),

    http.get('/api/power-traces/projection/', () => {
      if (!currentUser()) return notAuthenticated();
      return HttpResponse.json(db.powerProjection ?? { capacity_wh: 50, rates_per_min: [], series: [] });
    }),

    http.get('/api/power-traces/', ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const query = new URL(request.url).searchParams;
      const traces = db.powerTraces.filter(
        (t) =>
          (!query.has('run') || t.run === query.get('run')) &&
          (!query.has('device') || t.device === query.get('device')) &&
          (!query.has('kind') || t.kind === query.get('kind')),
      );
      // As the list endpoint does: no run windows in lists.
      return HttpResponse.json(traces.map((t) => ({ ...t, alignment: null, run_window: null })));
    }),

    http.post('/api/power-traces/', async ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const form = await request.formData();
      const file = form.get('file');
      if (file === null || typeof file === 'string') {
        return errorResponse(400, 'validation_error', 'Invalid input.', { fields: { file: ['No file was submitted.'] } });
      }
      const run = text(form.get('run')) || null;
      const baselineName = text(form.get('baseline_name'));
      const device = text(form.get('device')) || null;
      const trace: PowerTrace = {
        ...powerTraceFixture(),
        id: newId(),
        name: text(form.get('name')),
        kind: run ? 'run' : baselineName ? 'baseline' : 'device',
        device,
        device_name: db.devices.find((d) => d.id === device)?.name ?? null,
        run,
        baseline_name: baselineName,
        size_bytes: file.size,
        created_at: new Date().toISOString(),
      };
      db.powerTraces.push(trace);
      return HttpResponse.json(trace, { status: 201 });
    }),

    http.get('/api/power-traces/:id/', ({ params }) => {
      if (!currentUser()) return notAuthenticated();
      const trace = findTrace(params.id);
      return trace ? HttpResponse.json(trace) : notFound();
    }),

    http.patch('/api/power-traces/:id/', async ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const trace = findTrace(params.id);
      if (!trace) return notFound();
      const body = (await request.json()) as PowerTraceUpdate;
      Object.assign(trace, body);
      if ('offset_s' in body && trace.run_window) {
        // As power.selectors.trace_run_window: the offset is where the run starts.
        const length = trace.run_window.end_s - trace.run_window.start_s;
        const start = body.offset_s ?? 0;
        Object.assign(trace, {
          run_window: { start_s: start, end_s: start + length },
          alignment: body.offset_s === null ? 'absolute' : 'manual',
        } satisfies Partial<PowerTrace>);
      }
      return HttpResponse.json(trace);
    }),

    http.delete('/api/power-traces/:id/', ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      if (!findTrace(params.id)) return notFound();
      db.powerTraces = db.powerTraces.filter((t) => t.id !== params.id);
      return new HttpResponse(null, { status: 204 });
    }),

    http.post('/api/power-traces/:id/parse/', async ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const trace = findTrace(params.id);
      if (!trace) return notFound();
      Object.assign(trace, {
        spec: (await request.json()) as PowerTrace['spec'],
        status: 'parsing',
        progress: 0,
        error: null,
      } satisfies Partial<PowerTrace>);
      return HttpResponse.json(trace, { status: 202 });
    }),

    http.get('/api/power-traces/:id/plot/', ({ params }) => {
      if (!currentUser()) return notAuthenticated();
      const plot = db.powerPlots[String(params.id)];
      return plot ? HttpResponse.json(plot) : notFound();
    }),

    http.get('/api/power-traces/:id/figures/', ({ params }) => {
      if (!currentUser()) return notAuthenticated();
      const figures = db.powerFigures[String(params.id)];
      return figures ? HttpResponse.json(figures) : notFound();
    }),
  ];
}

/**
 * Network profiles (docs/network-profiles.md). The fake keeps a spec as it is sent (the agent's
 * checks are the backend's; a test wanting a refusal overrides the endpoint) and computes no
 * delays: a profile answers the `delays` it was stored with.
 */
function networkProfileHandlers() {
  const findProfile = (id: unknown) => db.networkProfiles.find((p) => p.id === id);
  const readOnly = (profile: NetworkProfileDetail) =>
    errorResponse(
      403,
      'network_profile_read_only',
      `“${profile.name}” is a built-in profile and cannot be changed or deleted. Copy it into your workspace (POST /api/network-profiles/${profile.id}/copy/) and change the copy.`,
    );
  const invalid = (fields: Record<string, string[]>) =>
    errorResponse(400, 'validation_error', 'Some fields are invalid: correct them and send again.', { fields });
  const nameTaken = (name: string, exclude?: string) =>
    db.networkProfiles.some((p) => !p.builtin && p.name === name && p.id !== exclude)
      ? invalid({ name: [`Your workspace already has a profile named “${name}”: choose another name.`] })
      : null;
  const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  const userProfile = (values: Pick<NetworkProfileDetail, 'name' | 'description' | 'citation' | 'spec' | 'delays'>) => {
    const now = new Date().toISOString();
    const profile: NetworkProfileDetail = {
      id: newId(),
      slug: slugOf(values.name),
      kind: 'user',
      builtin: false,
      created_at: now,
      updated_at: now,
      ...values,
    };
    db.networkProfiles.push(profile);
    return profile;
  };

  return [
    http.get('/api/network-profiles/', ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const query = new URL(request.url).searchParams;
      const kind = query.get('kind');
      const search = query.get('search')?.toLowerCase();
      const matching = db.networkProfiles.filter(
        (p) => (!kind || p.kind === kind) && (!search || p.name.toLowerCase().includes(search)),
      );
      // The workspace's own first, by name; then the catalogue in its order.
      const own = matching.filter((p) => !p.builtin).sort((a, b) => a.name.localeCompare(b.name));
      const builtins = matching.filter((p) => p.builtin);
      return HttpResponse.json([...own, ...builtins].map(({ delays: _delays, ...profile }) => profile));
    }),

    http.post('/api/network-profiles/', async ({ request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const input = (await request.json()) as NetworkProfileInput;
      if (!input.name) return invalid({ name: ['This field is required.'] });
      const taken = nameTaken(input.name);
      if (taken) return taken;
      const profile = userProfile({
        name: input.name,
        description: input.description ?? '',
        citation: input.citation ?? '',
        spec: input.spec,
        delays: [],
      });
      return HttpResponse.json(profile, { status: 201 });
    }),

    http.get('/api/network-profiles/:id/', ({ params }) => {
      if (!currentUser()) return notAuthenticated();
      const profile = findProfile(params.id);
      return profile ? HttpResponse.json(profile) : notFound();
    }),

    http.patch('/api/network-profiles/:id/', async ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const profile = findProfile(params.id);
      if (!profile) return notFound();
      if (profile.builtin) return readOnly(profile);
      const body = (await request.json()) as NetworkProfileUpdate;
      if (body.name !== undefined) {
        const taken = nameTaken(body.name, profile.id);
        if (taken) return taken;
      }
      Object.assign(profile, body, { updated_at: new Date().toISOString() });
      return HttpResponse.json(profile);
    }),

    http.delete('/api/network-profiles/:id/', ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const profile = findProfile(params.id);
      if (!profile) return notFound();
      if (profile.builtin) return readOnly(profile);
      db.networkProfiles = db.networkProfiles.filter((p) => p.id !== params.id);
      return new HttpResponse(null, { status: 204 });
    }),

    http.post('/api/network-profiles/:id/copy/', async ({ params, request }) => {
      if (!currentUser()) return notAuthenticated();
      const csrfError = checkCsrf(request);
      if (csrfError) return csrfError;
      const profile = findProfile(params.id);
      if (!profile) return notFound();
      const body = (await request.json()) as NetworkProfileCopy;
      // As services._free_copy_name: “X (copy)”, then “X (copy 2)”, …
      let name = body.name ?? `${profile.name} (copy)`;
      for (let n = 2; !body.name && nameTaken(name); n += 1) name = `${profile.name} (copy ${n})`;
      const taken = nameTaken(name);
      if (taken) return taken;
      const { name: _name, description, citation, spec, delays } = profile;
      return HttpResponse.json(userProfile({ name, description, citation, spec, delays }), { status: 201 });
    }),
  ];
}
