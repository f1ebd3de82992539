import { useState, type FormEvent } from 'react';

import { ConfirmActionButton } from '@/components/ui/confirm-action-button';
import { ErrorAlert } from '@/components/ui/error-alert';
import { InputField, SelectField } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';
import { ScrollTable } from '@/components/ui/scroll-table';
import { isApiError } from '@/lib/api-client';
import { formatDecimal } from '@/lib/format';

import { useDeleteBatteryReading } from '../api/delete-battery-reading';
import { useBatteryReadings } from '../api/get-battery-readings';
import { useRecordBatteryReading } from '../api/record-battery-reading';

import {
  EMPTY_BATTERY_FORM,
  validateBatteryForm,
  type BatteryField,
  type BatteryFieldErrors,
  type BatteryFormValues,
} from './battery-values';
import { formatJoules } from './energy';
import type { DeviceChoice } from './trace-upload';

const isBatteryField = (value: unknown): value is BatteryField =>
  value === 'device' || value === 'charge_mah' || value === 'voltage_v';

type BatteryReadingFormProps = {
  runId: string;
  devices: readonly DeviceChoice[];
};

/** Remove a reading with a second, explicit click; the figures fall back to the traces alone. */
const DeleteReadingButton = ({ readingId }: { readingId: string }) => {
  const remove = useDeleteBatteryReading();
  return (
    <ConfirmActionButton
      label="Remove"
      question="Remove this reading?"
      confirmLabel="Yes, remove"
      onConfirm={() => remove.mutate({ readingId })}
      isPending={remove.isPending}
      error={remove.isError ? remove.error : null}
    />
  );
};

/**
 * The run's battery-gauge readings, and a form to record one: the charge the device's
 * battery reports as used during the run, at its nominal voltage. The figures and the
 * projections of the run's traces show the energy it gives beside the trace's.
 */
export const BatteryReadingForm = ({ runId, devices }: BatteryReadingFormProps) => {
  const readings = useBatteryReadings({ runId });
  const record = useRecordBatteryReading();
  const [values, setValues] = useState<BatteryFormValues>(EMPTY_BATTERY_FORM);
  const [errors, setErrors] = useState<BatteryFieldErrors>({});
  const [formError, setFormError] = useState<unknown>(null);

  const update = (field: BatteryField, value: string) => {
    setValues((prev) => ({ ...prev, [field]: value }));
    setErrors(({ [field]: _cleared, ...rest }) => rest);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFormError(null);
    const validated = validateBatteryForm(runId, values);
    if (!validated.ok) {
      setErrors(validated.errors);
      return;
    }
    setErrors({});
    try {
      await record.mutateAsync(validated.input);
      setValues(EMPTY_BATTERY_FORM);
    } catch (error) {
      const field = isApiError(error) ? error.extra.field : undefined;
      if (isApiError(error) && isBatteryField(field)) setErrors({ [field]: [error.message] });
      else setFormError(error);
    }
  };

  const deviceName = (id: string | null) =>
    id === null ? 'The run as a whole' : (devices.find((d) => d.id === id)?.name ?? id);

  return (
    <section aria-labelledby="battery-heading">
      <h3 id="battery-heading" className="subheading">
        Battery gauge
      </h3>
      <p className="field-hint">
        The charge a device&apos;s battery gauge reports as used during the run; energy = mAh × 3.6 × V.
      </p>
      {readings.isPending ? <Loading /> : null}
      {readings.isError ? <ErrorAlert error={readings.error} /> : null}
      {readings.data && readings.data.length > 0 ? (
        <ScrollTable label="Battery-gauge readings of this run">
          <table className="table">
            <caption className="visually-hidden">Battery-gauge readings of this run</caption>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Charge (mAh)</th>
                <th scope="col">Voltage (V)</th>
                <th scope="col">Energy (J)</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {readings.data.map((reading) => (
                <tr key={reading.id}>
                  <th scope="row">{reading.device_name ?? deviceName(reading.device)}</th>
                  <td className="num">{formatDecimal(reading.charge_mah, 3)}</td>
                  <td className="num">{formatDecimal(reading.voltage_v, 2)}</td>
                  <td className="num">{formatJoules(reading.energy_j)}</td>
                  <td>
                    <DeleteReadingButton readingId={reading.id} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
      <form className="form form-wide" noValidate onSubmit={(e) => void onSubmit(e)} aria-label="Battery reading">
        {formError ? <ErrorAlert error={formError} /> : null}
        <div className="field-row">
          <SelectField
            label="Device"
            value={values.device}
            onChange={(event) => update('device', event.target.value)}
            options={[{ value: '', label: 'The run as a whole' }, ...devices.map((d) => ({ value: d.id, label: d.name }))]}
            error={errors.device}
          />
          <InputField
            label="Charge used (mAh)"
            type="number"
            min={0}
            step="any"
            value={values.charge_mah}
            onChange={(event) => update('charge_mah', event.target.value)}
            error={errors.charge_mah}
          />
          <InputField
            label="Battery voltage (V)"
            type="number"
            min={0}
            step="any"
            value={values.voltage_v}
            onChange={(event) => update('voltage_v', event.target.value)}
            error={errors.voltage_v}
            hint="Nominal, e.g. 3.82 for a phone's Li-ion cell."
          />
        </div>
        <div className="actions">
          <button type="submit" className="button button-small" disabled={record.isPending}>
            Record reading
          </button>
        </div>
      </form>
    </section>
  );
};
