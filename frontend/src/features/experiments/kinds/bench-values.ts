import type { AxisParameter } from '../components/design-axes';
import type { Drafts } from '../components/experiment-form-values';

import { toNumber } from './draft-values';

/**
 * What a cipher benchmark's and a throughput experiment's drafts share: the mechanisms and
 * data sizes timed and how often (each kind's ./<kind>/values.ts adds its own fields).
 */

/** The fields every bench-like kind's draft has (a throughput draft adds its window). */
type BenchDraft = Drafts['cipher_bench'];

type BenchContext = { draft: BenchDraft; sizes: readonly number[] };

/** The request fields a bench-like kind shares: what is timed, at which sizes, how often. */
export const benchInput = ({ draft, sizes }: BenchContext) => ({
  mechanisms: draft.mechanisms,
  data_sizes: sizes,
  repetitions: toNumber(draft.repetitions),
});

/** How a bench-like kind's lists (mechanisms, data sizes) are typed, split and filled from a design. */
export const BENCH_LIST_VALUES = {
  sizesText: (draft: BenchDraft): string => draft.data_sizes,
  splitItems: (parameter: AxisParameter, { draft, sizes }: BenchContext): unknown[] => {
    if (parameter === 'mechanisms') return draft.mechanisms;
    if (parameter === 'data_sizes') return [...sizes];
    return [];
  },
  withSplitItems: <D extends BenchDraft>(draft: D, parameter: AxisParameter, items: readonly string[]): D => {
    if (parameter === 'mechanisms') return { ...draft, mechanisms: [...items] };
    if (parameter === 'data_sizes') return { ...draft, data_sizes: items.join(', ') };
    return draft;
  },
};
