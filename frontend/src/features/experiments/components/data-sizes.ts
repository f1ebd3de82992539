/**
 * Reads the "Data sizes" field of a cipher benchmark (and the "Payload sizes" of a throughput
 * experiment, the same notation): comma-separated sizes, each a number of
 * bytes with an optional binary suffix (K, M, G = 1024, 1024², 1024³), so "16, 1K, 8K, 1M" is
 * [16, 1024, 8192, 1048576]. Also accepted: a "B" or "iB" after the suffix ("8 KiB", "16 B",
 * which is how the app shows sizes) and decimals that make whole bytes ("1.5K" = 1536).
 *
 * Only the notation is checked here; limits (at least one size, at most 1 GiB, ...) are the
 * create-experiment schema's job.
 */

const MULTIPLIERS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

// number, optional spaces, optional K/M/G, optional B or iB after it (or a lone B).
const SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*(?:([kmg])(?:i?b)?|b)?$/i;

export const DATA_SIZES_HINT = 'Bytes, comma-separated; K, M and G multiply by 1024 (e.g. 16, 1K, 8K, 1M).';
/** Each payload goes in one UDP datagram, hence the limit (the schema enforces it). */
export const PAYLOAD_SIZES_HINT = (maxBytes: number) =>
  `Bytes, comma-separated, each at most ${maxBytes}; K multiplies by 1024 (e.g. 1, 64, 1280).`;

export type DataSizesResult = { ok: true; sizes: number[] } | { ok: false; error: string };

/** One size in bytes, or null when the entry is not a size. */
export const parseDataSize = (entry: string): number | null => {
  const match = SIZE_PATTERN.exec(entry.trim());
  if (!match) return null;
  const [, amount = '', suffix = ''] = match;
  const bytes = Number(amount) * (MULTIPLIERS[suffix.toLowerCase()] ?? Number.NaN);
  return Number.isSafeInteger(bytes) ? bytes : null;
};

/** Every size of the field, in the order typed; empty entries (a trailing comma) are skipped. */
export const parseDataSizes = (text: string): DataSizesResult => {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const invalid = entries.filter((entry) => parseDataSize(entry) === null);
  if (invalid.length > 0) {
    const quoted = invalid.map((entry) => `"${entry}"`).join(', ');
    return {
      ok: false,
      error: `Not a size: ${quoted}. Use whole bytes, optionally with K, M or G (e.g. 16, 1K, 8K, 1M).`,
    };
  }
  return { ok: true, sizes: entries.map((entry) => parseDataSize(entry) ?? 0) };
};
