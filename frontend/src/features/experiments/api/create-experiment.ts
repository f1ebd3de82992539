import * as z from 'zod';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import { useInvalidatingMutation } from '@/lib/use-invalidating-mutation';
import type {
  BenchMechanismName,
  Experiment,
  ExperimentInput,
  ExperimentKind,
  MechanismName,
} from '@/types/api';
import {
  MAX_BENCH_DATA_BYTES,
  MAX_BENCH_REPETITIONS,
  MAX_DATA_SIZES,
  MAX_MECHANISMS,
  MAX_THROUGHPUT_REPETITIONS,
  MAX_UDP_PAYLOAD,
  MAX_WINDOW_MS,
  MIN_WINDOW_MS,
} from '@/types/limits.gen';

import { EXPERIMENTS_QUERY_KEY } from './get-experiments';

// Limits mirror the backend's ExperimentInput validation (see openapi.yaml); the
// server stays the authority and its field errors are shown the same way.
export const PAYLOAD_SIZE_MAX_BYTES = 65_536; // one MQTT message the agents can echo back
export const MESSAGE_COUNT_MAX = 100_000; // per device, bounds a run's RTT storage
// The limits the agents check too come from the contract (src/types/limits.gen.ts, make schema).
export const BENCH_DATA_SIZE_MAX_BYTES = MAX_BENCH_DATA_BYTES; // 1 GiB, the OpenSSL-on-Pi paper's largest file
export const BENCH_DATA_SIZES_MAX = MAX_DATA_SIZES; // sizes per benchmark, bounds one run's matrix
export const BENCH_MECHANISMS_MAX = MAX_MECHANISMS; // more than the catalogue holds
export const BENCH_REPETITIONS_MAX = MAX_BENCH_REPETITIONS;
export const THROUGHPUT_REPETITIONS_MAX = MAX_THROUGHPUT_REPETITIONS;
// A UDP datagram carries at most 65,507 bytes; the server also checks each mechanism's framing
// (IV, padding, tag or signature) against it and names the largest size that fits.
export const THROUGHPUT_PAYLOAD_MAX_BYTES = MAX_UDP_PAYLOAD;
export const WINDOW_MS_MIN = MIN_WINDOW_MS; // shorter windows measure the timer more than the packets
export const WINDOW_MS_MAX = MAX_WINDOW_MS;
/** The largest MQTT-SN predefined topic id (0 and 0xFFFF are reserved). */
export const MQTTSN_TOPIC_ID_MAX = 65_534;
/** Runs of each combination of the matrix (the backend's REPEATS_MAX). */
export const REPEATS_MAX = 100;
/** The largest run-order seed (the backend's experiments.matrix.ORDER_SEED_MAX, 2^31 - 1). */
export const ORDER_SEED_MAX = 2_147_483_647;
export const DESCRIPTION_MAX_CHARS = 5000;

export const EXPERIMENT_KINDS = [
  'messaging',
  'cipher_bench',
  'throughput',
] as const satisfies readonly ExperimentKind[];
export const PROTOCOLS = ['mqtt', 'srup', 'coap', 'mqttsn'] as const satisfies readonly ExperimentInput['protocol'][];
/** The protocols that go through the broker: only they have an MQTT version, TLS and network profiles. */
export const BROKER_PROTOCOLS: readonly ExperimentInput['protocol'][] = ['mqtt', 'srup'];
/** CoAP's message type: confirmable (acknowledged, retransmitted) or not. */
export const COAP_TYPES = ['con', 'non'] as const satisfies readonly ExperimentInput['coap_type'][];
export const COAP_METHODS = ['get', 'put', 'post'] as const satisfies readonly ExperimentInput['coap_method'][];
/** How an MQTT-SN client names its topic: registered, two characters, or a predefined id. */
export const TOPIC_ID_TYPES = ['normal', 'short', 'predefined'] as const satisfies readonly ExperimentInput['topic_id_type'][];
/** The signature of every SRUP message (SRUP signs itself: its payload security is none). */
export const SRUP_SIGNATURES = [
  'rsa-2048',
  'rsa-4096',
  'ed25519',
] as const satisfies readonly ExperimentInput['srup_signature'][];
export const MQTT_VERSIONS = ['3.1.1', '5'] as const satisfies readonly ExperimentInput['mqtt_version'][];
/**
 * How the agents reach the broker: plain TCP, or TLS 1.2 or 1.3 (its records are counted as
 * wire bytes). The server refuses TLS when the platform has no TLS broker configured.
 */
export const TRANSPORTS = ['tcp', 'tls1.2', 'tls1.3'] as const satisfies readonly ExperimentInput['transport'][];
export const QOS_LEVELS = [0, 1, 2] as const satisfies readonly ExperimentInput['qos'][];
/** MQTT-SN also publishes without a connection (QoS -1), and has no QoS 2. */
export const MQTTSN_QOS_LEVELS = [-1, 0, 1] as const satisfies readonly ExperimentInput['qos'][];
export const ALL_QOS_LEVELS = [-1, 0, 1, 2] as const satisfies readonly ExperimentInput['qos'][];
/**
 * Round trip, or one way: the platform's controller sends each device its messages through
 * the broker, so only the broker protocols (MQTT, SRUP) can be measured one way.
 */
export const MEASUREMENTS = ['round_trip', 'one_way', 'ack'] as const satisfies readonly ExperimentInput['measurement'][];
/**
 * What implements a cipher benchmark's or throughput experiment's mechanisms: pycryptodome,
 * OpenSSL in-process (the cryptography binding) or, for a cipher benchmark only, the openssl
 * command. The server refuses a mechanism the library does not provide, naming both.
 */
export const CRYPTO_LIBRARIES = ['pycryptodome', 'openssl', 'openssl-cli'] as const satisfies readonly ExperimentInput['crypto_library'][];
export const THROUGHPUT_CRYPTO_LIBRARIES = ['pycryptodome', 'openssl'] as const satisfies readonly ExperimentInput['crypto_library'][];
/**
 * How the gaps between a device's messages are drawn: all equal to the interval, or random
 * with the interval as their mean (uniform on 0 to 2 × interval, or exponential: Poisson
 * arrivals). Each run stores the seed of its random gaps in its spec.
 */
export const INTERVAL_DISTRIBUTIONS = [
  'fixed',
  'uniform',
  'exponential',
] as const satisfies readonly ExperimentInput['interval_distribution'][];
/**
 * The "no security" mechanism: a messaging default, meaningless to benchmark, and the
 * baseline of a throughput experiment (its relative costs are measured against it).
 */
export const NO_SECURITY = 'none' satisfies MechanismName;

const wholeNumber = (label: string) =>
  z
    .number({ error: `${label} must be a number.` })
    .int({ error: `${label} must be a whole number.` });

// Mechanism names come from GET /api/catalogue/ at run time, so the schema checks their
// shape only; the form offers nothing else and the server rejects unknown names.
const mechanismName = z.custom<MechanismName>(
  (value) => typeof value === 'string' && value.length > 0,
  { error: 'Choose a payload security mechanism.' },
);
const benchMechanismName = z.custom<BenchMechanismName>(
  (value) => typeof value === 'string' && value.length > 0 && value !== NO_SECURITY,
  { error: `"${NO_SECURITY}" cannot be benchmarked.` },
);

const commonFields = {
  name: z.string().trim().min(1, { error: 'Enter a name.' }),
  device_ids: z.array(z.string()).min(1, { error: 'Select at least one device.' }),
};

/**
 * The condition matrix every kind shares (docs/experiment-design.md): axes and exclusions
 * are built by the form (design-axes.ts) and checked by the server, which answers bad
 * combinations as field errors on `axes`.
 */
const matrixFields = {
  axes: z.array(z.record(z.string(), z.unknown())),
  exclusions: z.array(z.record(z.string(), z.unknown())),
  repeats: wholeNumber('Repeats')
    .min(1, { error: 'Run each combination at least once.' })
    .max(REPEATS_MAX, { error: `Run each combination at most ${REPEATS_MAX} times.` }),
  // The seed that shuffles the runs within each repeat block; left out, a fresh one is drawn
  // at every start and recorded on the runs (docs/experiment-design.md "Run order").
  order_seed: wholeNumber('Seed')
    .min(0, { error: `The seed must be 0 to ${ORDER_SEED_MAX}.` })
    .max(ORDER_SEED_MAX, { error: `The seed must be 0 to ${ORDER_SEED_MAX}.` })
    .optional(),
  description: z
    .string()
    .max(DESCRIPTION_MAX_CHARS, { error: `Keep the description under ${DESCRIPTION_MAX_CHARS} characters.` }),
  // True: the server generates the description from the design (a preset's text was written
  // for the preset's design); false: the text is the user's own and kept verbatim.
  description_generated: z.boolean(),
  // The slug of the preset the design started from ('' for none).
  preset: z.string(),
};

export const messagingInputSchema = z.object({
  kind: z.literal('messaging'),
  name: commonFields.name,
  ...matrixFields,
  protocol: z.enum(PROTOCOLS),
  mqtt_version: z.enum(MQTT_VERSIONS, { error: 'Choose MQTT 3.1.1 or MQTT 5.' }),
  transport: z.enum(TRANSPORTS, { error: 'Choose MQTT over TCP, TLS 1.2 or TLS 1.3.' }),
  qos: z.literal(ALL_QOS_LEVELS, { error: 'Choose QoS 0, 1 or 2 (MQTT-SN: -1, 0 or 1).' }),
  coap_type: z.enum(COAP_TYPES, { error: 'Choose confirmable or non-confirmable.' }),
  coap_method: z.enum(COAP_METHODS, { error: 'Choose GET, PUT or POST.' }),
  topic_id_type: z.enum(TOPIC_ID_TYPES, { error: 'Choose a topic id type.' }),
  security: mechanismName,
  // Interleaved mode (docs/experiment-design.md "Interleaved mechanisms"): [] for none; the
  // server checks the rotation (2 to 8, each once, MQTT or CoAP round trips) and answers a field error.
  interleave_mechanisms: z.array(mechanismName),
  payload_size: wholeNumber('Payload size')
    .min(1, { error: 'Payload size must be at least 1 byte.' })
    .max(PAYLOAD_SIZE_MAX_BYTES, {
      error: `Payload size must be at most ${PAYLOAD_SIZE_MAX_BYTES} bytes.`,
    }),
  message_count: wholeNumber('Messages per device')
    .min(1, { error: 'Send at least 1 message.' })
    .max(MESSAGE_COUNT_MAX, { error: `Send at most ${MESSAGE_COUNT_MAX} messages.` }),
  interval_ms: wholeNumber('Interval').min(0, { error: 'Interval cannot be negative.' }),
  interval_distribution: z.enum(INTERVAL_DISTRIBUTIONS, { error: 'Choose an interval distribution.' }),
  measurement: z.enum(MEASUREMENTS),
  srup_signature: z.enum(SRUP_SIGNATURES, { error: 'Choose RSA-2048, RSA-4096 or Ed25519.' }),
  // The id of a profile from GET /api/network-profiles/ (docs/network-profiles.md); left out
  // for none, the server's default. The server checks that it exists and is visible.
  network_profile: z.string().min(1, { error: 'Choose a network profile.' }).optional(),
  // Addressing and targets (docs/experiment-design.md "Topics and targets"): left out for the
  // platform's defaults; the server checks each value against its protocol and answers a field error.
  topic: z.string().optional(),
  mqttsn_topic_id: wholeNumber('Topic id')
    .min(1, { error: `The topic id must be 1 to ${MQTTSN_TOPIC_ID_MAX}.` })
    .max(MQTTSN_TOPIC_ID_MAX, { error: `The topic id must be 1 to ${MQTTSN_TOPIC_ID_MAX}.` })
    .optional(),
  broker_url: z.string().optional(),
  coap_url: z.string().optional(),
  coap_path: z.string().optional(),
  mqttsn_gateway: z.string().optional(),
  // Another device of the workspace serving the runs (the MQTT-SN gateway, the CoAP server).
  target_device: z.string().optional(),
  target_host: z.string().optional(),
  device_ids: commonFields.device_ids,
});

// A list of sizes in bytes (cipher-benchmark data sizes, throughput payload sizes); `noun`
// names one size in the messages.
const sizeList = (noun: string, max: number, maxText: string) =>
  z
    .array(
      wholeNumber(`A ${noun}`)
        .min(1, { error: `Each ${noun} must be at least 1 byte.` })
        .max(max, { error: `Each ${noun} must be at most ${maxText}.` }),
    )
    .min(1, { error: `Enter at least one ${noun}.` })
    .max(BENCH_DATA_SIZES_MAX, { error: `Enter at most ${BENCH_DATA_SIZES_MAX} ${noun}s.` })
    .refine((sizes) => new Set(sizes).size === sizes.length, {
      error: `Enter each ${noun} only once.`,
    });

const repetitions = (max: number) =>
  wholeNumber('Repetitions')
    .min(1, { error: 'Repeat at least once.' })
    .max(max, { error: `Repeat at most ${max} times.` });

export const cipherBenchInputSchema = z.object({
  kind: z.literal('cipher_bench'),
  name: commonFields.name,
  ...matrixFields,
  mechanisms: z
    .array(benchMechanismName)
    .min(1, { error: 'Choose at least one mechanism.' })
    .max(BENCH_MECHANISMS_MAX, { error: `Choose at most ${BENCH_MECHANISMS_MAX} mechanisms.` }),
  data_sizes: sizeList('data size', BENCH_DATA_SIZE_MAX_BYTES, '1 GiB'),
  repetitions: repetitions(BENCH_REPETITIONS_MAX),
  crypto_library: z.enum(CRYPTO_LIBRARIES, { error: 'Choose a crypto library.' }),
  device_ids: commonFields.device_ids,
});

export const throughputInputSchema = z.object({
  kind: z.literal('throughput'),
  name: commonFields.name,
  ...matrixFields,
  // Any mechanism, "none" included: it is the baseline. The server accepts a list without
  // it (relative costs are then unknown), so the form only suggests it.
  mechanisms: z
    .array(mechanismName)
    .min(1, { error: 'Choose at least one mechanism.' })
    .max(BENCH_MECHANISMS_MAX, { error: `Choose at most ${BENCH_MECHANISMS_MAX} mechanisms.` }),
  data_sizes: sizeList('payload size', THROUGHPUT_PAYLOAD_MAX_BYTES, `${THROUGHPUT_PAYLOAD_MAX_BYTES} bytes`),
  repetitions: repetitions(THROUGHPUT_REPETITIONS_MAX),
  window_ms: wholeNumber('Window')
    .min(WINDOW_MS_MIN, { error: `The window must be at least ${WINDOW_MS_MIN} ms.` })
    .max(WINDOW_MS_MAX, { error: `The window must be at most ${WINDOW_MS_MAX} ms.` }),
  crypto_library: z.enum(THROUGHPUT_CRYPTO_LIBRARIES, { error: 'Choose pycryptodome or OpenSSL.' }),
  // The UDP receiver of the packets (udp://host:port; the server checks it, as the agent
  // does). Left out: a sink on the device itself.
  target_url: z.string().optional(),
  device_ids: commonFields.device_ids,
});

/** What the new-experiment form sends: the fields of one kind of experiment. */
export const createExperimentInputSchema = z.discriminatedUnion('kind', [
  messagingInputSchema,
  cipherBenchInputSchema,
  throughputInputSchema,
]);

export type CreateExperimentInput = z.infer<typeof createExperimentInputSchema>;

export const EXPERIMENT_DEFAULTS = {
  kind: 'messaging',
  protocol: 'mqtt',
  srup_signature: 'rsa-2048',
  mqtt_version: '3.1.1',
  transport: 'tcp',
  qos: 1,
  coap_type: 'con',
  coap_method: 'get',
  topic_id_type: 'normal',
  security: NO_SECURITY,
  payload_size: 66,
  message_count: 100,
  interval_ms: 0,
  interval_distribution: 'fixed',
  measurement: 'round_trip',
  repetitions: 100,
  window_ms: 2000,
  crypto_library: 'pycryptodome',
} as const satisfies Partial<ExperimentInput>;

/**
 * What a new throughput experiment starts with: the MQTT-SN paper's smallest and largest
 * payloads, fewer repetitions than a cipher benchmark (each one is two whole windows), and
 * the "none" baseline its relative costs need.
 */
export const THROUGHPUT_DEFAULTS = {
  mechanisms: [NO_SECURITY],
  data_sizes: [1, 1280],
  repetitions: 10,
  window_ms: EXPERIMENT_DEFAULTS.window_ms,
  crypto_library: EXPERIMENT_DEFAULTS.crypto_library,
} as const satisfies Partial<ExperimentInput>;

// openapi-typescript marks every field with a server default as required, but a request may
// leave them out: a cipher benchmark or throughput experiment sends none of the messaging
// fields, and vice versa.
type ExperimentInputBody = Pick<ExperimentInput, 'name' | 'kind' | 'device_ids'> &
  Partial<ExperimentInput>;

/** POST /api/experiments/ → 201 Experiment. Axes, exclusions and repeats make it a matrix of runs. */
export const createExperiment = (data: CreateExperimentInput): Promise<Experiment> =>
  api.post<Experiment>('/api/experiments/', data satisfies ExperimentInputBody);

type UseCreateExperimentOptions = { mutationConfig?: MutationConfig<typeof createExperiment> };

export const useCreateExperiment = ({ mutationConfig }: UseCreateExperimentOptions = {}) =>
  useInvalidatingMutation({
    mutationFn: createExperiment,
    invalidates: [EXPERIMENTS_QUERY_KEY],
    mutationConfig,
  });
