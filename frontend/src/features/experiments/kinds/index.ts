import type { ExperimentKind } from '@/types/api';

import { CipherBenchFields } from './cipher-bench/fields';
import { CIPHER_BENCH_VALUES } from './cipher-bench/values';
import { MessagingFields } from './messaging/fields';
import { MESSAGING_VALUES } from './messaging/values';
import { ThroughputFields } from './throughput/fields';
import { THROUGHPUT_VALUES } from './throughput/values';
import type { ExperimentKindForm } from './types';

/**
 * Every kind of experiment the form offers, by name: the one place a new kind is registered
 * (its folder holds its fields and its values: defaults, request, design). The type makes a
 * kind the API knows but this lacks an error.
 */
export const EXPERIMENT_KIND_FORMS: { [K in ExperimentKind]: ExperimentKindForm<K> } = {
  messaging: { Fields: MessagingFields, values: MESSAGING_VALUES },
  cipher_bench: { Fields: CipherBenchFields, values: CIPHER_BENCH_VALUES },
  throughput: { Fields: ThroughputFields, values: THROUGHPUT_VALUES },
};

export const kindForm = <K extends ExperimentKind>(kind: K): ExperimentKindForm<K> => EXPERIMENT_KIND_FORMS[kind];

export type { KindFieldsProps, KindFormOptions } from './types';
