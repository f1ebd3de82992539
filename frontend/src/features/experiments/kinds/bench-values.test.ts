import { describe, expect, it } from 'vitest';

import { BENCH_LIST_VALUES, benchInput } from './bench-values';

const DRAFT = { mechanisms: ['aes-128-cbc', 'none'], data_sizes: '16, 1024', repetitions: '5', crypto_library: 'openssl' };

describe('benchInput', () => {
  it('should send the mechanisms, the parsed sizes and the repetitions as a number', () => {
    expect(benchInput({ draft: DRAFT, sizes: [16, 1024] })).toEqual({
      mechanisms: ['aes-128-cbc', 'none'],
      data_sizes: [16, 1024],
      repetitions: 5,
    });
  });
});

describe('BENCH_LIST_VALUES', () => {
  it('should split the mechanisms and the parsed sizes, and nothing else', () => {
    const context = { draft: DRAFT, sizes: [16, 1024] };
    expect(BENCH_LIST_VALUES.splitItems('mechanisms', context)).toEqual(['aes-128-cbc', 'none']);
    expect(BENCH_LIST_VALUES.splitItems('data_sizes', context)).toEqual([16, 1024]);
    expect(BENCH_LIST_VALUES.splitItems('repetitions', context)).toEqual([]);
  });

  it('should put a design’s split items back into their list field', () => {
    expect(BENCH_LIST_VALUES.withSplitItems(DRAFT, 'mechanisms', ['present-80-cbc']).mechanisms).toEqual(['present-80-cbc']);
    expect(BENCH_LIST_VALUES.withSplitItems(DRAFT, 'data_sizes', ['1', '1280']).data_sizes).toBe('1, 1280');
    expect(BENCH_LIST_VALUES.withSplitItems(DRAFT, 'repetitions', ['3'])).toBe(DRAFT);
  });

  it('should read the sizes field as typed', () => {
    expect(BENCH_LIST_VALUES.sizesText(DRAFT)).toBe('16, 1024');
  });
});
