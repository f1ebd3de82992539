// Pure display helpers. Every number shown in the run summary goes through here.

export const MISSING = '—';

/** A number to exactly `decimals` decimals; null/NaN (no samples) as an em dash. */
export const formatDecimal = (value: number | null | undefined, decimals = 3): string =>
  value === null || value === undefined || !Number.isFinite(value) ? MISSING : value.toFixed(decimals);

/** Milliseconds (or any timing) to exactly 3 decimals; null/NaN (no samples) as an em dash. */
export const formatMs = (value: number | null | undefined): string => formatDecimal(value, 3);

/** A ratio as a factor to exactly `decimals` decimals: 2.345 → "2.35×"; null/NaN as an em dash. */
export const formatFactor = (value: number | null | undefined, decimals = 2): string => {
  const text = formatDecimal(value, decimals);
  return text === MISSING ? MISSING : `${text}×`;
};

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** Binary units, one decimal above bytes: 3_975_000_000 → "3.7 GiB". */
export const formatBytes = (bytes: number | null | undefined): string => {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) return MISSING;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${BYTE_UNITS[unit]}`;
};

/**
 * An exact size in the largest binary unit that divides it: 8192 → "8 KiB", 1536 → "1536 B".
 * For sizes someone chose (benchmark data sizes), where "1.5 KiB" would hide the exact value.
 */
export const formatDataSize = (bytes: number | null | undefined): string => {
  if (bytes === null || bytes === undefined || !Number.isInteger(bytes) || bytes < 0) return MISSING;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && value % 1024 === 0 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value} ${BYTE_UNITS[unit]}`;
};

/** ISO timestamp to the user's locale; null as an em dash. */
export const formatDateTime = (iso: string | null | undefined): string => {
  if (!iso) return MISSING;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? MISSING : date.toLocaleString();
};

/**
 * A duration in whole seconds, in the two largest units: 42_000 → "42 s", 185_000 →
 * "3 min 05 s", 3_725_000 → "1 h 02 min"; negative or missing as an em dash.
 */
export const formatDuration = (ms: number | null | undefined): string => {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return MISSING;
  const seconds = Math.round(ms / 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${two(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${two(minutes % 60)} min`;
};
