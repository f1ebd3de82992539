import { formatDecimal, MISSING } from '@/lib/format';

/**
 * Pure unit conversions and number formats of the power pages. Charge and energy are tied by
 * the voltage: 1 mAh at V volts is 3.6 × V joules (1 mAh = 3.6 C; J = C × V).
 */

const COULOMBS_PER_MAH = 3.6;
const JOULES_PER_WH = 3600;

const isNumber = (value: number | null | undefined): value is number =>
  value !== null && value !== undefined && Number.isFinite(value);

/** Energy in joules of a charge in mAh delivered at `voltage` volts. */
export const mahToJoules = (mah: number, voltage: number): number => mah * COULOMBS_PER_MAH * voltage;

/** Charge in mAh that delivers `joules` at `voltage` volts. */
export const joulesToMah = (joules: number, voltage: number): number => joules / (COULOMBS_PER_MAH * voltage);

/** Battery capacity in Wh of `mah` at a nominal `voltage` (e.g. 10 000 mAh at 3.7 V = 37 Wh). */
export const mahToWh = (mah: number, voltage: number): number => mahToJoules(mah, voltage) / JOULES_PER_WH;

export const milliampsToAmps = (milliamps: number): number => milliamps / 1000;

/** A current in mA drawn at `voltage` volts, as power in W. */
export const milliampsToWatts = (milliamps: number, voltage: number): number => milliampsToAmps(milliamps) * voltage;

/** `decimals` decimals of a value in a smaller unit (`factor` per unit): 0.0876 J → "87.600" mJ. */
const scaled = (value: number | null | undefined, factor: number, decimals: number): string =>
  isNumber(value) ? formatDecimal(value * factor, decimals) : MISSING;

/** Watts to 3 decimals (mW resolution, what USB meters give). */
export const formatWatts = (watts: number | null | undefined): string => formatDecimal(watts, 3);

/** Joules to 3 decimals. */
export const formatJoules = (joules: number | null | undefined): string => formatDecimal(joules, 3);

/** Joules shown as millijoules, 3 decimals: per-message energies are a few mJ. */
export const formatMillijoules = (joules: number | null | undefined): string => scaled(joules, 1000, 3);

/** A percentage to one decimal with its sign when negative: 55.66 → "55.7 %". */
export const formatPercent = (percent: number | null | undefined): string =>
  isNumber(percent) ? `${formatDecimal(percent, 1)} %` : MISSING;

/** Hours to one decimal, with days once it is more than two days: 24.5 → "24.5 h", 100 → "100.0 h (4.2 d)". */
export const formatHours = (hours: number | null | undefined): string => {
  if (!isNumber(hours)) return MISSING;
  const text = `${formatDecimal(hours, 1)} h`;
  return hours > 48 ? `${text} (${formatDecimal(hours / 24, 1)} d)` : text;
};

/** Seconds to 3 decimals with the unit: "31.500 s". */
export const formatSeconds = (seconds: number | null | undefined): string =>
  isNumber(seconds) ? `${formatDecimal(seconds, 3)} s` : MISSING;

/** A whole count with thousands separators, e.g. a sample count. */
export const formatCount = (count: number | null | undefined): string =>
  isNumber(count) ? Math.round(count).toLocaleString('en-US') : MISSING;

/** A number typed into a field: '' and text that is not a number become NaN. */
export const parseNumber = (text: string): number => {
  const trimmed = text.trim();
  return trimmed === '' ? Number.NaN : Number(trimmed);
};

/** `value` rounded to `decimals` decimals without binary noise (0.1 + 0.2 → 0.3). */
export const roundTo = (value: number, decimals: number): number => {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
};
