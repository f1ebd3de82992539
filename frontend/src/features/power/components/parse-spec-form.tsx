import { useMemo, useState, type ChangeEvent, type FormEvent } from 'react';

import { ErrorAlert, submitErrorOf } from '@/components/ui/error-alert';
import { CheckboxField, InputField, RadioOption, SelectField, type SelectOption } from '@/components/ui/form-field';
import { isApiError } from '@/lib/api-client';
import type { PowerDetection, PowerParseSpec } from '@/types/api';

import { CURRENT_UNITS, POWER_UNITS, TIME_UNITS, useParsePowerTrace, VOLTAGE_UNITS } from '../api/parse-power-trace';

import {
  columnOptions,
  delimiterOptions,
  formatOptions,
  needsSupplyVoltage,
  specToFormValues,
  SUPPLY_VOLTAGE_NEEDED_CODE,
  splitServerSpecErrors,
  validateSpecForm,
  type SpecField,
  type SpecFieldErrors,
  type SpecFormValues,
  type TimeMode,
} from './parse-spec-values';

const TIME_UNIT_LABELS: Record<(typeof TIME_UNITS)[number], string> = {
  s: 'seconds (s)',
  ms: 'milliseconds (ms)',
  us: 'microseconds (µs)',
  ns: 'nanoseconds (ns)',
  datetime: 'date and time',
};

const unitOptions = (units: readonly string[]): SelectOption[] =>
  units.map((unit) => ({ value: unit, label: unit.replace(/^u/, 'µ') }));

const NO_COLUMN: SelectOption = { value: '', label: 'Not in this file' };

/** The measured channels, each a column and its unit. */
const CHANNELS = [
  { key: 'voltage', label: 'Voltage', units: VOLTAGE_UNITS },
  { key: 'current', label: 'Current', units: CURRENT_UNITS },
  { key: 'power', label: 'Power', units: POWER_UNITS },
] as const;

type ParseSpecFormProps = {
  traceId: string;
  detection: PowerDetection;
  /** The spec tried last (a failed parse), else the detection's suggestion fills the form. */
  spec: PowerParseSpec | null;
  /** While the worker parses: the form stays, read-only, so a failure can be fixed in place. */
  parsing: boolean;
};

/** The column mapping, prefilled from the detection; "Parse" sends it to the worker. */
export const ParseSpecForm = ({ traceId, detection, spec, parsing }: ParseSpecFormProps) => {
  const [values, setValues] = useState<SpecFormValues>(() => specToFormValues(spec ?? detection.spec));
  const [errors, setErrors] = useState<SpecFieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const parse = useParsePowerTrace();
  const busy = parse.isPending || parsing;

  const columns = useMemo(() => columnOptions(detection), [detection]);
  const optionalColumns = useMemo(() => [NO_COLUMN, ...columns], [columns]);

  const set = <F extends SpecField>(field: F, value: SpecFormValues[F]) => {
    setValues((prev) => ({ ...prev, [field]: value }));
    setErrors(({ [field]: _cleared, ...rest }) => rest);
  };
  const onText =
    (field: Exclude<SpecField, 'decimal_comma'>) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
      set(field, event.target.value);

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFormError(null);
    const validated = validateSpecForm(values);
    if (!validated.ok) {
      setErrors(validated.errors);
      setFormError('Please correct the highlighted fields.');
      return;
    }
    setErrors({});
    try {
      await parse.mutateAsync({ traceId, spec: validated.spec });
    } catch (error) {
      if (isApiError(error) && error.code === SUPPLY_VOLTAGE_NEEDED_CODE) {
        // Not a broken mapping: a value the file cannot carry. Ask for it at its field.
        setErrors({ supply_voltage_v: [error.message] });
        return;
      }
      const { byField, message } = submitErrorOf(error, (fieldErrors) => splitServerSpecErrors(fieldErrors, values));
      if (byField) setErrors(byField);
      setFormError(message);
    }
  };

  const supplyNeeded = needsSupplyVoltage(values);

  const timeModeOption = (mode: TimeMode, label: string) => (
    <RadioOption
      label={label}
      name="time_mode"
      value={mode}
      checked={values.time_mode === mode}
      onChange={() => set('time_mode', mode)}
    />
  );

  return (
    <form
      className="form form-wide"
      noValidate
      onSubmit={(event) => void handleSubmit(event)}
      aria-label="Column mapping"
    >
      {formError ? <ErrorAlert message={formError} /> : null}
      <fieldset className="fieldset-plain" disabled={busy}>
        <fieldset className="fieldset">
          <legend>File</legend>
          <div className="field-row">
            <SelectField
              label="Format"
              value={values.format}
              onChange={onText('format')}
              options={formatOptions(detection, values.format)}
              error={errors.format}
            />
            <SelectField
              label="Delimiter"
              value={values.delimiter}
              onChange={onText('delimiter')}
              options={delimiterOptions(values.delimiter)}
              error={errors.delimiter}
            />
            <InputField
              label="Lines to skip"
              type="number"
              min={0}
              step={1}
              value={values.skip_lines}
              onChange={onText('skip_lines')}
              error={errors.skip_lines}
              hint="Before the first data line: titles and the header."
            />
            <CheckboxField
              label="Decimal comma (1,5 for 1.5)"
              checked={values.decimal_comma}
              onChange={(event) => set('decimal_comma', event.target.checked)}
            />
          </div>
        </fieldset>

        <fieldset className="fieldset">
          <legend>Time</legend>
          <div className="radio-row" role="radiogroup" aria-label="Time from">
            {timeModeOption('column', 'A time column')}
            {timeModeOption('rate', 'A fixed sample rate')}
          </div>
          {values.time_mode === 'column' ? (
            <div className="field-row">
              <SelectField
                label="Time column"
                value={values.time_column}
                onChange={onText('time_column')}
                options={[{ value: '', label: 'Choose a column' }, ...columns]}
                error={errors.time_column}
              />
              <SelectField
                label="Time unit"
                value={values.time_unit}
                onChange={onText('time_unit')}
                options={TIME_UNITS.map((unit) => ({ value: unit, label: TIME_UNIT_LABELS[unit] }))}
                error={errors.time_unit}
              />
              {values.time_unit === 'datetime' ? (
                <>
                  <InputField
                    label="Datetime format"
                    type="text"
                    value={values.datetime_format}
                    onChange={onText('datetime_format')}
                    error={errors.datetime_format}
                    hint="strftime codes, e.g. %Y-%m-%d %H:%M:%S.%f"
                  />
                  <InputField
                    label="Time zone"
                    type="text"
                    value={values.timezone}
                    onChange={onText('timezone')}
                    error={errors.timezone}
                    hint="IANA name, e.g. UTC or Europe/London"
                  />
                </>
              ) : null}
            </div>
          ) : (
            <div className="field-row">
              <InputField
                label="Sample rate (Hz)"
                type="number"
                min={0}
                step="any"
                value={values.sample_rate_hz}
                onChange={onText('sample_rate_hz')}
                error={errors.sample_rate_hz}
              />
            </div>
          )}
        </fieldset>

        <fieldset className="fieldset">
          <legend>Measurements</legend>
          <p className="field-hint">
            Power comes from the power column, else voltage × current, else current × supply voltage.
          </p>
          {CHANNELS.map(({ key, label, units }) => {
            const column = `${key}_column` as const;
            const unit = `${key}_unit` as const;
            return (
              <div className="field-row" key={key}>
                <SelectField
                  label={`${label} column`}
                  value={values[column]}
                  onChange={onText(column)}
                  options={optionalColumns}
                  error={errors[column]}
                />
                <SelectField
                  label={`${label} unit`}
                  value={values[unit]}
                  onChange={onText(unit)}
                  options={unitOptions(units)}
                  error={errors[unit]}
                  disabled={values[column] === ''}
                />
              </div>
            );
          })}
          {supplyNeeded ? (
            <p role="status" className="alert alert-warning">
              <strong>Supply voltage needed:</strong> this file logs current only, so power is current × the
              supply voltage. Give it below (e.g. 5 for USB, 3.3 for a PPK2 in source mode).
            </p>
          ) : null}
          <div className="field-row">
            <InputField
              label="Supply voltage (V)"
              type="number"
              min={0}
              step="any"
              value={values.supply_voltage_v}
              onChange={onText('supply_voltage_v')}
              error={errors.supply_voltage_v}
              hint="Required when the file logs current only; also used for charge in mAh."
            />
          </div>
        </fieldset>
      </fieldset>

      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          {parsing ? 'Parsing…' : 'Parse'}
        </button>
      </div>
    </form>
  );
};
