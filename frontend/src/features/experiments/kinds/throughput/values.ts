import { THROUGHPUT_DEFAULTS, throughputInputSchema } from '../../api/create-experiment';
import type { Drafts } from '../../components/experiment-form-values';
import { BENCH_LIST_VALUES, benchInput } from '../bench-values';
import { fillDraft, toNumber } from '../draft-values';
import type { KindValues } from '../types';

const DEFAULTS: Drafts['throughput'] = {
  mechanisms: [...THROUGHPUT_DEFAULTS.mechanisms],
  data_sizes: THROUGHPUT_DEFAULTS.data_sizes.join(', '),
  repetitions: String(THROUGHPUT_DEFAULTS.repetitions),
  window_ms: String(THROUGHPUT_DEFAULTS.window_ms),
  crypto_library: THROUGHPUT_DEFAULTS.crypto_library,
  target_url: '',
};

/** A throughput experiment's draft: mechanisms × payload sizes, repetitions of a window. */
export const THROUGHPUT_VALUES: KindValues<'throughput'> = {
  defaults: DEFAULTS,
  schema: throughputInputSchema,
  numberSchemas: {
    repetitions: throughputInputSchema.shape.repetitions,
    window_ms: throughputInputSchema.shape.window_ms,
  },
  toInput: (context) => ({
    ...benchInput(context),
    window_ms: toNumber(context.draft.window_ms),
    crypto_library: context.draft.crypto_library,
    // Only when filled: a design without a receiver sends to the device's own sink.
    ...(context.draft.target_url.trim() ? { target_url: context.draft.target_url.trim() } : {}),
  }),
  fromDesign: (design) => fillDraft(DEFAULTS, design),
  ...BENCH_LIST_VALUES,
};
