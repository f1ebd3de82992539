import { useMutation, useQueryClient } from '@tanstack/react-query';
import * as z from 'zod';

import { api } from '@/lib/api-client';
import type { MutationConfig } from '@/lib/react-query';
import type { Experiment, ExperimentInput } from '@/types/api';

import { EXPERIMENTS_QUERY_KEY } from './get-experiments';

// Limits mirror the backend's ExperimentInput validation (see openapi.yaml); the
// server stays the authority and its field errors are shown the same way.
export const PAYLOAD_SIZE_MAX_BYTES = 65_536; // one MQTT message the agents can echo back
export const MESSAGE_COUNT_MAX = 100_000; // per device, bounds a run's RTT storage

export const PROTOCOLS = ['mqtt'] as const satisfies readonly ExperimentInput['protocol'][];
export const QOS_LEVELS = [0, 1, 2] as const satisfies readonly ExperimentInput['qos'][];
export const SECURITY_MODES = ['none'] as const satisfies readonly ExperimentInput['security'][];
export const MEASUREMENTS = ['round_trip'] as const satisfies readonly ExperimentInput['measurement'][];

const wholeNumber = (label: string) =>
  z
    .number({ error: `${label} must be a number.` })
    .int({ error: `${label} must be a whole number.` });

export const createExperimentInputSchema = z.object({
  name: z.string().trim().min(1, { error: 'Enter a name.' }),
  protocol: z.enum(PROTOCOLS),
  qos: z.literal(QOS_LEVELS, { error: 'Choose QoS 0, 1 or 2.' }),
  security: z.enum(SECURITY_MODES),
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
  device_ids: z.array(z.string()).min(1, { error: 'Select at least one device.' }),
});

export type CreateExperimentInput = z.infer<typeof createExperimentInputSchema>;

export const EXPERIMENT_DEFAULTS = {
  protocol: 'mqtt',
  qos: 1,
  security: 'none',
  payload_size: 66,
  message_count: 100,
  interval_ms: 0,
  measurement: 'round_trip',
} as const satisfies Partial<CreateExperimentInput>;

/** POST /api/experiments/ → 201 Experiment. */
export const createExperiment = (data: CreateExperimentInput): Promise<Experiment> =>
  api.post<Experiment>('/api/experiments/', data satisfies ExperimentInput);

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
