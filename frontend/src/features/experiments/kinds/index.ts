import type { ExperimentKind } from '@/types/api';

import { CipherBenchFields } from './cipher-bench/fields';
import { MessagingFields } from './messaging/fields';
import { ThroughputFields } from './throughput/fields';
import type { ExperimentKindForm } from './types';

/**
 * Every kind of experiment the form offers, by name: the one place a new kind is registered
 * (its folder holds its fields). The type makes a kind the API knows but this lacks an error.
 */
export const EXPERIMENT_KIND_FORMS: { [K in ExperimentKind]: ExperimentKindForm<K> } = {
  messaging: { Fields: MessagingFields },
  cipher_bench: { Fields: CipherBenchFields },
  throughput: { Fields: ThroughputFields },
};

export const kindForm = <K extends ExperimentKind>(kind: K): ExperimentKindForm<K> => EXPERIMENT_KIND_FORMS[kind];

export type { KindFieldsProps, KindFormOptions } from './types';
