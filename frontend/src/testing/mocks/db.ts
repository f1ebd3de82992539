import type {
  Catalogue,
  DelayFigures,
  Device,
  DeviceHealth,
  Experiment,
  ExperimentInput,
  ExperimentResults,
  MechanismInfo,
  MechanismKind,
  NetworkProfileDetail,
  PowerBatteryReading,
  PowerDetection,
  PowerFigures,
  PowerPlot,
  PowerProjection,
  PowerTrace,
  Preset,
  Run,
  RunBrief,
  RunComparison,
  RunDistribution,
  RunMethods,
  RunSizes,
  RunStatistics,
  Share,
  SharedContent,
  User,
} from '@/types/api';

/**
 * In-memory backend state for the MSW handlers. Tests arrange it directly
 * (db.devices.push(...), db.session.userId = null) and it is reset after each test.
 */

export const TEST_PASSWORD = 'correct-horse';
export const TEST_CSRF_TOKEN = 'test-csrf-token';

export const testUser: User = {
  id: 1,
  username: 'alice',
  workspace: { id: '0b3f6a4e-7a8e-4e35-9a59-3f0c2d1e0001', name: "alice's workspace" },
};

export const deviceFixture = (overrides: Partial<Device> = {}): Device => ({
  id: '5d1c0d9e-0000-4000-8000-000000000001',
  name: 'pi-lab-1',
  online: true,
  last_seen_at: '2025-01-01T12:00:00Z',
  enrolled_at: '2025-01-01T10:00:00Z',
  health: null,
  facts: {
    hostname: 'pi-lab-1',
    cpu_model: 'Cortex-A72',
    cpu_cores: 4,
    ram_bytes: 4 * 1024 ** 3,
    kernel: '6.1.0-rpi7',
    os: 'Debian GNU/Linux 12',
    python_version: '3.11.2',
  },
  ...overrides,
});

const mechanism = (
  name: string,
  label: string,
  family: string,
  kind: MechanismKind,
  keyBits: number | null,
): MechanismInfo => ({ name, label, family, kind, key_bits: keyBits });

/** A subset of the backend's catalogue (experiments/catalogue.py): every family, in its order. */
export const catalogueFixture: Catalogue = {
  mechanisms: [
    mechanism('none', 'None', 'None', 'none', null),
    mechanism('null', 'Null (harness floor, no cryptography)', 'None', 'null', null),
    mechanism('aes-128-cbc', 'AES-128-CBC', 'AES', 'cipher', 128),
    mechanism('aes-256-gcm', 'AES-256-GCM', 'AES', 'aead', 256),
    mechanism('3des-cbc', '3DES-CBC (3 keys)', 'DES', 'cipher', 168),
    mechanism('chacha20-poly1305', 'ChaCha20-Poly1305', 'Stream', 'aead', 256),
    mechanism('hmac-sha256', 'HMAC-SHA256', 'MAC', 'mac', 256),
    mechanism('rsa-2048-pkcs1v15', 'RSA-2048 PKCS#1 v1.5 (SHA-256)', 'RSA', 'signature', 2048),
    mechanism('ed25519', 'Ed25519', 'Elliptic curve', 'signature', 256),
    mechanism('present-80-cbc', 'PRESENT-80-CBC', 'Lightweight', 'cipher', 80),
    mechanism('ascon-aead128', 'Ascon-AEAD128 (NIST SP 800-232)', 'Lightweight', 'aead', 128),
  ],
  experiment_kinds: [
    { name: 'messaging', label: 'Messaging round trip' },
    { name: 'cipher_bench', label: 'Cipher benchmark' },
    { name: 'throughput', label: 'Throughput (secured packets per window)' },
  ],
};

/**
 * The backend's defaults for the fields an ExperimentInput may leave out
 * (experiments/apis/experiments.py).
 */
export const experimentInputDefaults = (): Required<Omit<ExperimentInput, 'name' | 'device_ids'>> => ({
  kind: 'messaging',
  protocol: 'mqtt',
  mqtt_version: '3.1.1',
  transport: 'tcp',
  srup_signature: 'rsa-2048',
  qos: 1,
  coap_type: 'con',
  coap_method: 'get',
  topic_id_type: 'normal',
  security: 'none',
  interleave_mechanisms: [],
  topic: '',
  mqttsn_topic_id: null,
  broker_url: '',
  coap_url: '',
  coap_path: '',
  mqttsn_gateway: '',
  target_device: null,
  target_host: '',
  payload_size: 66,
  message_count: 100,
  interval_ms: 0,
  interval_distribution: 'fixed',
  measurement: 'round_trip',
  mechanisms: [],
  data_sizes: [],
  repetitions: 100,
  window_ms: 2000,
  target_url: '',
  crypto_library: 'pycryptodome',
  network_profile: null,
  axes: [],
  exclusions: [],
  repeats: 1,
  order_seed: null,
  description: '',
  description_generated: false,
  preset: '',
});

export const experimentFixture = (overrides: Partial<Experiment> = {}): Experiment => ({
  id: 'e0000000-0000-4000-8000-000000000001',
  name: 'QoS 1 baseline',
  ...experimentInputDefaults(),
  device_ids: ['5d1c0d9e-0000-4000-8000-000000000001'],
  network_profile_name: null,
  created_at: '2025-01-02T10:00:00Z',
  runs: [],
  ...overrides,
});

/** A run of an experiment without a matrix (no axes, one repeat), as GET /api/runs/{id}/ answers it. */
export const runFixture = (overrides: Partial<Run> = {}): Run => ({
  id: 'r0000000-0000-4000-8000-000000000001',
  experiment: { id: 'e0000000-0000-4000-8000-000000000001', name: 'QoS 1 baseline' },
  kind: 'messaging',
  status: 'queued',
  error: '',
  spec: {},
  cell: {},
  cell_label: '',
  label: 'run of 2025-01-02 10:00',
  repeat: 1,
  position: 0,
  order_seed: null,
  retry_of: null,
  transitions: [{ status: 'queued', at: '2025-01-02T10:00:00Z' }],
  queued_at: '2025-01-02T10:00:00Z',
  created_at: '2025-01-02T10:00:00Z',
  started_at: null,
  finished_at: null,
  devices: [],
  summary: [],
  bench_summary: [],
  waiting_for: null,
  target: null,
  ...overrides,
});

/** A run as an experiment lists it (Experiment.runs). */
export const runBriefFixture = (overrides: Partial<RunBrief> = {}): RunBrief => ({
  id: 'r0000000-0000-4000-8000-000000000001',
  status: 'done',
  cell_label: '',
  label: 'run of 2025-01-02 10:00',
  repeat: 1,
  position: 0,
  order_seed: null,
  error: '',
  created_at: '2025-01-02T10:00:00Z',
  started_at: null,
  finished_at: null,
  waiting_for: null,
  ...overrides,
});

/** What the server suggests for a Monsoon Power Monitor export (docs/power-traces.md). */
export const monsoonDetection: PowerDetection = {
  format: 'monsoon',
  label: 'Monsoon Power Monitor CSV',
  confidence: 'high',
  spec: {
    format: 'monsoon',
    delimiter: ',',
    decimal_comma: false,
    skip_lines: 1,
    time: { column: 0, unit: 's', datetime_format: null, timezone: 'UTC' },
    sample_rate_hz: null,
    voltage: { column: 2, unit: 'V' },
    current: { column: 1, unit: 'mA' },
    power: null,
    supply_voltage_v: null,
  },
  header: ['Time(ms)', 'Main(mA)', 'Main Voltage(V)'],
  preview: [
    ['0.0002', '12.3', '4.2'],
    ['0.0004', '12.5', '4.2'],
  ],
  notes: ['Monsoon writes seconds under the Time(ms) header; read as seconds.'],
  alternatives: [{ format: 'custom', label: 'Other CSV (map the columns)' }],
};

/** A trace as uploaded: detected, not parsed yet. */
export const powerTraceFixture = (overrides: Partial<PowerTrace> = {}): PowerTrace => ({
  id: 'a0000000-0000-4000-8000-000000000001',
  name: 'pi3 srup run',
  kind: 'device',
  device: null,
  device_name: null,
  run: null,
  baseline_name: '',
  original_filename: 'monsoon.csv',
  size_bytes: 123_456,
  sha256: 'ab'.repeat(32),
  status: 'uploaded',
  progress: 0,
  detection: monsoonDetection,
  spec: null,
  error: null,
  sample_count: 0,
  duration_s: null,
  absolute_start: null,
  has_voltage: false,
  has_current: false,
  supply_voltage_v: null,
  offset_s: null,
  alignment: null,
  run_window: null,
  warnings: [],
  notes: [],
  created_at: '2025-01-03T10:00:00Z',
  parsed_at: null,
  ...overrides,
});

/** A parsed trace of a run, aligned by the meter's timestamps. */
export const parsedTraceFixture = (overrides: Partial<PowerTrace> = {}): PowerTrace =>
  powerTraceFixture({
    status: 'parsed',
    progress: 1,
    spec: monsoonDetection.spec,
    sample_count: 1_200_000,
    duration_s: 120,
    absolute_start: '2025-01-02T09:59:58Z',
    has_voltage: true,
    has_current: true,
    supply_voltage_v: 5,
    kind: 'run',
    run: 'r0000000-0000-4000-8000-000000000001',
    device: '5d1c0d9e-0000-4000-8000-000000000001',
    device_name: 'pi-lab-1',
    alignment: 'absolute',
    run_window: { start_s: 1.5, end_s: 31.5 },
    notes: ['12 timestamps that stepped backwards were spread evenly.'],
    parsed_at: '2025-01-03T10:01:00Z',
    ...overrides,
  });

type Db = {
  session: { userId: number | null };
  users: User[];
  devices: Device[];
  experiments: Experiment[];
  runs: Run[];
  /**
   * Results of messaging runs by run id (docs/results.md). A messaging run without an entry
   * answers 404; any other kind 400 run_has_no_round_trips, as the backend does.
   */
  statistics: Record<string, RunStatistics>;
  distributions: Record<string, RunDistribution>;
  methods: Record<string, RunMethods>;
  sizes: Record<string, RunSizes>;
  /** GET /api/compare/'s answer, whatever runs are asked for (null: 404). */
  comparison: RunComparison | null;
  /** A shared experiment's results by share token (GET /api/public/shares/{token}/results/). */
  sharedResults: Record<string, ExperimentResults>;
  /** The workspace's links (GET/POST /api/shares/). */
  shares: Share[];
  /**
   * What each active link shows, by token (GET /api/public/shares/<token>/); a token without
   * one answers 404 share_not_found. Its runs' results come from the tables above.
   */
  sharedContent: Record<string, SharedContent>;
  powerTraces: PowerTrace[];
  /** By trace id; a trace without one has no plot (404). Same for figures. */
  powerPlots: Record<string, PowerPlot>;
  powerFigures: Record<string, PowerFigures>;
  powerProjection: PowerProjection | null;
  batteryReadings: PowerBatteryReading[];
  /**
   * Network profiles (docs/network-profiles.md), built-ins (workspace-less) and the
   * workspace's own alike, as their detail; the list answers them without `delays`.
   */
  networkProfiles: NetworkProfileDetail[];
  /** GET /api/presets/. */
  presets: Preset[];
  /** What POST /api/experiments/plan/ warns about, whatever the design. */
  planWarnings: string[];
  /** What a device's next health check ends with, by device id (pending while unset). */
  healthResults: Record<string, DeviceHealth>;
  /** Every X-CSRFToken header the server received on an unsafe request. */
  csrfHeaders: (string | null)[];
};

const initialDb = (): Db => ({
  session: { userId: testUser.id },
  users: [testUser],
  devices: [
    deviceFixture(),
    deviceFixture({
      id: '5d1c0d9e-0000-4000-8000-000000000002',
      name: 'pi-lab-2',
      online: false,
      facts: { hostname: 'pi-lab-2' },
    }),
  ],
  experiments: [],
  runs: [],
  statistics: {},
  distributions: {},
  methods: {},
  sizes: {},
  comparison: null,
  sharedResults: {},
  shares: [],
  sharedContent: {},
  powerTraces: [],
  powerPlots: {},
  powerFigures: {},
  powerProjection: null,
  batteryReadings: [],
  networkProfiles: [],
  presets: [],
  planWarnings: [],
  healthResults: {},
  csrfHeaders: [],
});

export const db: Db = initialDb();

export const resetDb = () => {
  Object.assign(db, initialDb());
};

// --- results of messaging runs (docs/results.md) ---

export const roundTripStatisticsFixture = (
  overrides: Partial<RunStatistics['all_devices']> = {},
): RunStatistics['all_devices'] => ({
  device_id: '5d1c0d9e-0000-4000-8000-000000000001',
  device_name: 'pi-lab-1',
  records: 100,
  n: 100,
  lost: 0,
  rejected: 0,
  rejected_signature: 0,
  rejected_replay: 0,
  decrypt_error: 0,
  mean_ms: 12.3456,
  ci_method: 'bootstrap-t',
  ci_low_ms: 11.7,
  ci_high_ms: 12.99,
  t_ci_low_ms: 11.71,
  t_ci_high_ms: 12.98,
  median_ms: 12,
  median_ci_low_ms: 11.5,
  median_ci_high_ms: 12.5,
  q1_ms: 10,
  q3_ms: 14,
  p95_ms: 20.5,
  p99_ms: 25,
  min_ms: 8.1,
  max_ms: 30,
  variance_ms2: 10.3041,
  std_ms: 3.21,
  ...overrides,
});

/** Statistics of a two-device run (pi-lab-1 and pi-lab-2 of the default devices). */
export const runStatisticsFixture = (runId: string, overrides: Partial<RunStatistics> = {}): RunStatistics => ({
  run_id: runId,
  status: 'done',
  confidence: 0.95,
  measurement: 'round_trip',
  quantity: 'round-trip time',
  devices: [
    roundTripStatisticsFixture(),
    roundTripStatisticsFixture({
      device_id: '5d1c0d9e-0000-4000-8000-000000000002',
      device_name: 'pi-lab-2',
      records: 100,
      n: 1,
      lost: 97,
      rejected: 2,
      rejected_signature: 2,
      mean_ms: 15,
      ci_method: null,
      ci_low_ms: null,
      ci_high_ms: null,
      t_ci_low_ms: null,
      t_ci_high_ms: null,
      median_ci_low_ms: null,
      median_ci_high_ms: null,
      median_ms: 15,
      q1_ms: 15,
      q3_ms: 15,
      p95_ms: 15,
      p99_ms: 15,
      min_ms: 15,
      max_ms: 15,
      variance_ms2: null,
      std_ms: null,
    }),
  ],
  all_devices: roundTripStatisticsFixture({
    device_id: null,
    device_name: 'All devices',
    records: 200,
    n: 101,
    lost: 97,
    rejected: 2,
    mean_ms: 12.37,
    ci_low_ms: 11.75,
    ci_high_ms: 12.99,
  }),
  mean_of_device_means_ms: 13.6728,
  repeats: {
    n: 1,
    ci_method: 't',
    mean_ms: 13.6728,
    std_ms: null,
    ci_low_ms: null,
    ci_high_ms: null,
    runs: [],
  },
  mechanisms: [],
  ...overrides,
});

/** Plot data of the same two devices over 3 bins from 8 to 32 ms. */
export const runDistributionFixture = (runId: string): RunDistribution => ({
  run_id: runId,
  low_ms: 8,
  high_ms: 32,
  edges_ms: [8, 16, 24, 32],
  grid_ms: [8, 20, 32],
  density_method: 'Gaussian kernel density of every value, binned',
  devices: [
    {
      device_id: '5d1c0d9e-0000-4000-8000-000000000001',
      device_name: 'pi-lab-1',
      mechanism: null,
      n: 100,
      counts: [70, 25, 5],
      below: 0,
      above: 0,
      box: { q1_ms: 10, median_ms: 12, q3_ms: 14, whisker_low_ms: 8.1, whisker_high_ms: 19.9, outliers: 2, outlier_sample_ms: [25, 30] },
      density: [0.05, 0.02, 0.001],
      series: { seq_first: [0, 50], seq_last: [49, 99], min_ms: [8.1, 9], max_ms: [30, 22], mean_ms: [12.5, 12.2] },
    },
    {
      device_id: '5d1c0d9e-0000-4000-8000-000000000002',
      device_name: 'pi-lab-2',
      mechanism: null,
      n: 1,
      counts: [0, 1, 0],
      below: 0,
      above: 0,
      box: { q1_ms: 15, median_ms: 15, q3_ms: 15, whisker_low_ms: 15, whisker_high_ms: 15, outliers: 0, outlier_sample_ms: [] },
      density: null,
      series: { seq_first: [3], seq_last: [3], min_ms: [15], max_ms: [15], mean_ms: [15] },
    },
  ],
});

// --- network profiles (docs/network-profiles.md) ---

export const networkProfileFixture = (overrides: Partial<NetworkProfileDetail> = {}): NetworkProfileDetail => ({
  id: 'c0000000-0000-4000-8000-000000000001',
  name: 'Poor 3G, bursty loss',
  slug: 'poor-3g-bursty-loss',
  kind: 'user',
  builtin: false,
  description: '',
  citation: '',
  spec: {},
  created_at: '2025-01-04T10:00:00Z',
  updated_at: '2025-01-04T10:00:00Z',
  delays: [],
  ...overrides,
});

const TIM_BAD_3G = 'TIM.bad.3G.no_roaming';
const TIM_BAD_3G_MU = 122.649579;
const TIM_BAD_3G_SIGMA = 40.359329;

/** A measured table's delay as the backend reports it: 40 bins of 4096 entries, a long right tail. */
export const delayFiguresFixture = (overrides: Partial<DelayFigures> = {}): DelayFigures => {
  const counts = Array.from({ length: 40 }, (_, i) => Math.round(400 * Math.exp(-((i - 12) ** 2) / 40)) + (i > 20 ? 3 : 0));
  counts[12] = (counts[12] ?? 0) + 4096 - counts.reduce((sum, c) => sum + c, 0);
  return {
    direction: 'ingress',
    distribution: 'table',
    table: TIM_BAD_3G,
    mu_ms: TIM_BAD_3G_MU,
    sigma_ms: TIM_BAD_3G_SIGMA,
    delivered_mean_ms: 121.7,
    delivered_std_ms: 31.8,
    entries: 4096,
    edges_ms: Array.from({ length: 41 }, (_, i) => 20 + i * 7.5),
    counts,
    ...overrides,
  };
};

/** A slice of the built-in catalogue: SRUP conditions 1 and 5, and the table SRUP 5 uses. */
export const networkCatalogueFixture = (): NetworkProfileDetail[] => [
  networkProfileFixture({
    id: 'c1000000-0000-4000-8000-000000000001',
    name: 'SRUP 1: LAN Ethernet (no shaping)',
    slug: 'srup-1-lan',
    kind: 'builtin_condition',
    builtin: true,
    description: 'The paper’s best case: all devices on one Ethernet LAN, no network conditioning.',
    citation: 'Poulter & Cox 2021, Table A1, experiment 1: "LAN Ethernet"',
    spec: {},
  }),
  networkProfileFixture({
    id: 'c1000000-0000-4000-8000-000000000005',
    name: 'SRUP 5: Poor-strength 3G',
    slug: 'srup-5-3g-poor',
    kind: 'builtin_condition',
    builtin: true,
    description: `Measured table ${TIM_BAD_3G} with its mu/sigma from profile_info.txt.`,
    citation: 'Poulter & Cox 2021, Table A1, experiment 5: "Poor Strength 3G"',
    spec: { ingress: { delay_ms: TIM_BAD_3G_MU, jitter_ms: TIM_BAD_3G_SIGMA, distribution: 'table', table: TIM_BAD_3G } },
    delays: [delayFiguresFixture()],
  }),
  networkProfileFixture({
    id: 'c2000000-0000-4000-8000-000000000001',
    name: TIM_BAD_3G,
    slug: 'table-tim-bad-3g-no-roaming',
    kind: 'measured_table',
    builtin: true,
    description: 'TIM, poor signal, 3G, not roaming: round-trip latencies.',
    citation: 'mobile-latency-emulator by Martino Trevisan (GPL-3.0), CNSM 2019.',
    spec: { egress: { delay_ms: TIM_BAD_3G_MU, jitter_ms: TIM_BAD_3G_SIGMA, distribution: 'table', table: TIM_BAD_3G } },
    delays: [delayFiguresFixture({ direction: 'egress' })],
  }),
];

/**
 * A device's proof that its run's network profile was enforced (RunDevice.network), as the
 * agent's enforcement.py `EnforcedPath.proof()` reports it: SRUP 5's table on ingress, 50
 * probes all back within tolerance, the forwarder's and the relay's final counters.
 */
export const networkProofFixture = (overrides: Record<string, unknown> = {}): Record<string, unknown> => {
  const counters = (forwarded: number, droppedLoss: number, droppedQueue: number) => ({
    received: forwarded + droppedLoss + droppedQueue,
    forwarded,
    bytes: forwarded * 120,
    dropped_loss: droppedLoss,
    dropped_queue: droppedQueue,
    duplicated: 0,
    reordered: 0,
    corrupted: 0,
    write_errors: 0,
  });
  const relayDirection = (p50: number | null) => ({ bytes: 13_200, chunks: 200, hop_p50_us: p50, hop_p95_us: 97, hop_max_us: 640 });
  return {
    backend: 'userspace',
    profile: {
      name: 'SRUP 5: Poor-strength 3G',
      spec: { ingress: { delay_ms: TIM_BAD_3G_MU, jitter_ms: TIM_BAD_3G_SIGMA, distribution: 'table', table: TIM_BAD_3G } },
    },
    tables: { egress: null, ingress: TIM_BAD_3G },
    link: { netns: 'isb-rr0000000', root_ip: '10.77.0.1', device_ip: '10.77.0.2' },
    verification: {
      ok: true,
      reason: 'median round trip 121.30 ms, expected 120.00 ± 12.00 ms',
      expected_median_ms: 120,
      measured_median_ms: 121.3,
      measured_p95_ms: 180.25,
      tolerance_ms: 12,
      sent: 50,
      received: 50,
      spacing_ms: 20,
    },
    forwarder: {
      egress: counters(250, 0, 0),
      ingress: counters(247, 3, 0),
      held: { egress: 0, ingress: 0 },
      cpu_user_s: 0.21,
      cpu_system_s: 0.08,
      pid: 4242,
    },
    relay: {
      listen: '10.77.0.1:40123',
      upstream: '127.0.0.1:1883',
      connections: 1,
      up: relayDirection(20),
      down: relayDirection(14),
      errors: [],
    },
    ...overrides,
  };
};
