import { useMutation, useQueryClient } from '@tanstack/react-query';
import * as z from 'zod';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type {
  BenchMechanismName,
  Experiment,
  ExperimentInput,
  ExperimentKind,
  MechanismName,
} from '@/types/api';

import { EXPERIMENTS_QUERY_KEY } from './get-experiments';

// Limits mirror the backend's ExperimentInput validation (see openapi.yaml); the
// server stays the authority and its field errors are shown the same way.
export const PAYLOAD_SIZE_MAX_BYTES = 65_536; // one MQTT message the agents can echo back
export const MESSAGE_COUNT_MAX = 100_000; // per device, bounds a run's RTT storage
export const BENCH_DATA_SIZE_MAX_BYTES = 1024 ** 3; // 1 GiB, the largest file of the OpenSSL-on-Pi paper
export const BENCH_DATA_SIZES_MAX = 16; // sizes per benchmark, bounds one run's matrix
export const BENCH_MECHANISMS_MAX = 64; // more than the catalogue holds
export const BENCH_REPETITIONS_MAX = 10_000;

export const EXPERIMENT_KINDS = ['messaging', 'cipher_bench'] as const satisfies readonly ExperimentKind[];
export const PROTOCOLS = ['mqtt'] as const satisfies readonly ExperimentInput['protocol'][];
export const QOS_LEVELS = [0, 1, 2] as const satisfies readonly ExperimentInput['qos'][];
export const MEASUREMENTS = ['round_trip'] as const satisfies readonly ExperimentInput['measurement'][];
/** The "no security" mechanism: a messaging default, and meaningless to benchmark. */
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

export const messagingInputSchema = z.object({
  kind: z.literal('messaging'),
  name: commonFields.name,
  protocol: z.enum(PROTOCOLS),
  qos: z.literal(QOS_LEVELS, { error: 'Choose QoS 0, 1 or 2.' }),
  security: mechanismName,
  payload_size: wholeNumber('Payload size')
    .min(1, { error: 'Payload size must be at least 1 byte.' })
    .max(PAYLOAD_SIZE_MAX_BYTES, {
      error: `Payload size must be at most ${PAYLOAD_SIZE_MAX_BYTES} bytes.`,
    }),
  message_count: wholeNumber('Messages per device')
    .min(1, { error: 'Send at least 1 message.' })
    .max(MESSAGE_COUNT_MAX, { error: `Send at most ${MESSAGE_COUNT_MAX} messages.` }),
  interval_ms: wholeNumber('Interval').min(0, { error: 'Interval cannot be negative.' }),
  measurement: z.enum(MEASUREMENTS),
  device_ids: commonFields.device_ids,
});

export const cipherBenchInputSchema = z.object({
  kind: z.literal('cipher_bench'),
  name: commonFields.name,
  mechanisms: z
    .array(benchMechanismName)
    .min(1, { error: 'Choose at least one mechanism.' })
    .max(BENCH_MECHANISMS_MAX, { error: `Choose at most ${BENCH_MECHANISMS_MAX} mechanisms.` }),
  data_sizes: z
    .array(
      wholeNumber('A data size')
        .min(1, { error: 'Each data size must be at least 1 byte.' })
        .max(BENCH_DATA_SIZE_MAX_BYTES, { error: 'Each data size must be at most 1 GiB.' }),
    )
    .min(1, { error: 'Enter at least one data size.' })
    .max(BENCH_DATA_SIZES_MAX, { error: `Enter at most ${BENCH_DATA_SIZES_MAX} data sizes.` })
    .refine((sizes) => new Set(sizes).size === sizes.length, {
      error: 'Enter each data size only once.',
    }),
  repetitions: wholeNumber('Repetitions')
    .min(1, { error: 'Repeat at least once.' })
    .max(BENCH_REPETITIONS_MAX, { error: `Repeat at most ${BENCH_REPETITIONS_MAX} times.` }),
  device_ids: commonFields.device_ids,
});

/** What the new-experiment form sends: the fields of one kind of experiment. */
export const createExperimentInputSchema = z.discriminatedUnion('kind', [
  messagingInputSchema,
  cipherBenchInputSchema,
]);

export type CreateExperimentInput = z.infer<typeof createExperimentInputSchema>;

export const EXPERIMENT_DEFAULTS = {
  kind: 'messaging',
  protocol: 'mqtt',
  qos: 1,
  security: NO_SECURITY,
  payload_size: 66,
  message_count: 100,
  interval_ms: 0,
  measurement: 'round_trip',
  repetitions: 100,
} as const satisfies Partial<ExperimentInput>;

// openapi-typescript marks every field with a server default as required, but a request may
// leave them out: a cipher benchmark sends none of the messaging fields, and vice versa.
type ExperimentInputBody = Pick<ExperimentInput, 'name' | 'kind' | 'device_ids'> &
  Partial<ExperimentInput>;

/** POST /api/experiments/ → 201 Experiment. */
export const createExperiment = (data: CreateExperimentInput): Promise<Experiment> =>
  api.post<Experiment>('/api/experiments/', data satisfies ExperimentInputBody);

type UseCreateExperimentOptions = { mutationConfig?: MutationConfig<typeof createExperiment> };

export const useCreateExperiment = ({ mutationConfig }: UseCreateExperimentOptions = {}) => {
  const queryClient = useQueryClient();
  const { onSuccess, ...restConfig } = mutationConfig ?? {};
  return useMutation({
    onSuccess: async (...args) => {
      await queryClient.invalidateQueries({ queryKey: EXPERIMENTS_QUERY_KEY });
      return onSuccess?.(...args);
    },
    ...restConfig,
    mutationFn: createExperiment,
  });
};
