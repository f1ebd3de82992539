import { cipherBenchInputSchema, EXPERIMENT_DEFAULTS } from '../../api/create-experiment';
import type { Drafts } from '../../components/experiment-form-values';
import { BENCH_LIST_VALUES, benchInput } from '../bench-values';
import { fillDraft } from '../draft-values';
import type { KindValues } from '../types';

const DEFAULTS: Drafts['cipher_bench'] = {
  mechanisms: [],
  data_sizes: '',
  repetitions: String(EXPERIMENT_DEFAULTS.repetitions),
  crypto_library: EXPERIMENT_DEFAULTS.crypto_library,
};

/** A cipher benchmark's draft: mechanisms × data sizes, repetitions. */
export const CIPHER_BENCH_VALUES: KindValues<'cipher_bench'> = {
  defaults: DEFAULTS,
  schema: cipherBenchInputSchema,
  numberSchemas: { repetitions: cipherBenchInputSchema.shape.repetitions },
  toInput: (context) => ({ ...benchInput(context), crypto_library: context.draft.crypto_library }),
  fromDesign: (design) => fillDraft(DEFAULTS, design),
  ...BENCH_LIST_VALUES,
};
