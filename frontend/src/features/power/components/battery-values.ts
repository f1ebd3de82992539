import { recordBatteryReadingInputSchema, type RecordBatteryReadingInput } from '../api/record-battery-reading';

import { parseNumber } from './energy';

/** The battery-gauge form as typed: charge used during the run and the battery's nominal voltage. */
export type BatteryFormValues = {
  device: string;
  charge_mah: string;
  voltage_v: string;
};

export type BatteryField = keyof BatteryFormValues;
export type BatteryFieldErrors = Partial<Record<BatteryField, string[]>>;

export const EMPTY_BATTERY_FORM: BatteryFormValues = { device: '', charge_mah: '', voltage_v: '' };

/** The MQTT vs CoAP paper's rule: J = mAh × 3.6 × V (1 mAh is 3.6 C). */
export const batteryJoules = (chargeMah: number, voltageV: number): number => chargeMah * 3.6 * voltageV;

type Validated = { ok: true; input: RecordBatteryReadingInput } | { ok: false; errors: BatteryFieldErrors };

/** The values as the API's input for `runId` (device '' is the run as a whole), or the field messages. */
export const validateBatteryForm = (runId: string, values: BatteryFormValues): Validated => {
  const parsed = recordBatteryReadingInputSchema.safeParse({
    run: runId,
    device: values.device === '' ? null : values.device,
    charge_mah: parseNumber(values.charge_mah),
    voltage_v: parseNumber(values.voltage_v),
  });
  if (parsed.success) return { ok: true, input: parsed.data };
  const errors: BatteryFieldErrors = {};
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0]);
    if (field === 'charge_mah' || field === 'voltage_v' || field === 'device') {
      errors[field] = [...(errors[field] ?? []), issue.message];
    }
  }
  return { ok: false, errors };
};
