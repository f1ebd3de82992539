import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';

import { ErrorAlert, errorMessage } from '@/components/ui/error-alert';
import { InputField, SelectField } from '@/components/ui/form-field';
import { paths } from '@/config/paths';
import { isApiError, type FieldErrors } from '@/lib/api-client';
import type { Device, Experiment, Run } from '@/types/api';

import {
  createExperimentInputSchema,
  EXPERIMENT_DEFAULTS,
  MEASUREMENTS,
  MESSAGE_COUNT_MAX,
  PAYLOAD_SIZE_MAX_BYTES,
  PROTOCOLS,
  QOS_LEVELS,
  SECURITY_MODES,
  useCreateExperiment,
  type CreateExperimentInput,
} from '../api/create-experiment';
import { useStartRun } from '../api/start-run';

import { MEASUREMENT_LABELS, PROTOCOL_LABELS, SECURITY_LABELS } from './labels';

type FieldName = keyof CreateExperimentInput;

// What the inputs hold: text, as typed. Numbers are parsed at submit time.
type FormValues = Record<Exclude<FieldName, 'device_ids'>, string> & { device_ids: string[] };

const FIELD_NAMES = Object.keys(createExperimentInputSchema.shape) as FieldName[];

const isFieldName = (key: string): key is FieldName => (FIELD_NAMES as string[]).includes(key);

const toNumber = (value: string): number => (value.trim() === '' ? Number.NaN : Number(value));

const toCandidate = (values: FormValues) => ({
  ...values,
  qos: toNumber(values.qos),
  payload_size: toNumber(values.payload_size),
  message_count: toNumber(values.message_count),
  interval_ms: toNumber(values.interval_ms),
});

const initialValues = (devices: readonly Pick<Device, 'id' | 'online'>[]): FormValues => ({
  name: '',
  protocol: EXPERIMENT_DEFAULTS.protocol,
  qos: String(EXPERIMENT_DEFAULTS.qos),
  security: EXPERIMENT_DEFAULTS.security,
  payload_size: String(EXPERIMENT_DEFAULTS.payload_size),
  message_count: String(EXPERIMENT_DEFAULTS.message_count),
  interval_ms: String(EXPERIMENT_DEFAULTS.interval_ms),
  measurement: EXPERIMENT_DEFAULTS.measurement,
  // Online devices can run right away, so they are the sensible default.
  device_ids: devices.filter((d) => d.online).map((d) => d.id),
});

/** Splits a server validation error into per-field messages and the rest. */
const splitServerErrors = (fields: FieldErrors) => {
  const byField: Partial<Record<FieldName, string[]>> = {};
  const other: string[] = [];
  for (const [key, messages] of Object.entries(fields)) {
    if (isFieldName(key)) byField[key] = messages;
    else other.push(...messages);
  }
  return { byField, other };
};

type Intent = 'create' | 'run';

type ExperimentFormProps = {
  devices: readonly Pick<Device, 'id' | 'name' | 'online'>[];
  onCreated: (experiment: Experiment) => void;
  onRunStarted: (run: Run) => void;
};

export const ExperimentForm = ({ devices, onCreated, onRunStarted }: ExperimentFormProps) => {
  const [values, setValues] = useState<FormValues>(() => initialValues(devices));
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<FieldName, string[]>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [createdButNotRun, setCreatedButNotRun] = useState<Experiment | null>(null);
  // Set by the clicked submit button's onClick, which fires before the form's submit.
  const intentRef = useRef<Intent>('create');

  const createExperiment = useCreateExperiment();
  const startRun = useStartRun();
  const busy = createExperiment.isPending || startRun.isPending;

  const setField =
    (name: Exclude<FieldName, 'device_ids'>) =>
    (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
      setValues((prev) => ({ ...prev, [name]: event.target.value }));
      setFieldErrors(({ [name]: _cleared, ...rest }) => rest);
    };

  const toggleDevice = (deviceId: string) => (event: ChangeEvent<HTMLInputElement>) => {
    const { checked } = event.target;
    setValues((prev) => ({
      ...prev,
      device_ids: checked
        ? [...prev.device_ids, deviceId]
        : prev.device_ids.filter((id) => id !== deviceId),
    }));
    setFieldErrors(({ device_ids: _cleared, ...rest }) => rest);
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFormError(null);
    setCreatedButNotRun(null);

    const parsed = createExperimentInputSchema.safeParse(toCandidate(values));
    if (!parsed.success) {
      const errors: Partial<Record<FieldName, string[]>> = {};
      for (const issue of parsed.error.issues) {
        const key = String(issue.path[0]);
        if (isFieldName(key)) errors[key] = [...(errors[key] ?? []), issue.message];
      }
      setFieldErrors(errors);
      setFormError('Please correct the highlighted fields.');
      return;
    }
    setFieldErrors({});

    let experiment: Experiment;
    try {
      experiment = await createExperiment.mutateAsync(parsed.data);
    } catch (error) {
      if (isApiError(error) && Object.keys(error.fieldErrors).length > 0) {
        const { byField, other } = splitServerErrors(error.fieldErrors);
        setFieldErrors(byField);
        setFormError([error.message, ...other].join(' '));
      } else {
        setFormError(errorMessage(error));
      }
      return;
    }

    if (intentRef.current === 'create') {
      onCreated(experiment);
      return;
    }
    try {
      onRunStarted(await startRun.mutateAsync({ experimentId: experiment.id }));
    } catch (error) {
      setCreatedButNotRun(experiment);
      setFormError(`The experiment was created, but the run could not start: ${errorMessage(error)}`);
    }
  };

  const devicesErrorId = 'experiment-devices-error';

  return (
    <form className="form" noValidate onSubmit={(event) => void handleSubmit(event)}>
      {formError ? <ErrorAlert message={formError} /> : null}
      {createdButNotRun ? (
        <p>
          <Link to={paths.experiment.getHref(createdButNotRun.id)}>Open the new experiment</Link>
        </p>
      ) : null}

      <InputField
        label="Name"
        type="text"
        value={values.name}
        onChange={setField('name')}
        error={fieldErrors.name}
        required
      />
      <div className="field-row">
        <SelectField
          label="Protocol"
          value={values.protocol}
          onChange={setField('protocol')}
          options={PROTOCOLS.map((p) => ({ value: p, label: PROTOCOL_LABELS[p] }))}
          error={fieldErrors.protocol}
        />
        <SelectField
          label="QoS"
          value={values.qos}
          onChange={setField('qos')}
          options={QOS_LEVELS.map((q) => ({ value: String(q), label: String(q) }))}
          error={fieldErrors.qos}
        />
        <SelectField
          label="Payload security"
          value={values.security}
          onChange={setField('security')}
          options={SECURITY_MODES.map((s) => ({ value: s, label: SECURITY_LABELS[s] }))}
          error={fieldErrors.security}
        />
      </div>
      <div className="field-row">
        <InputField
          label="Payload size (bytes)"
          type="number"
          inputMode="numeric"
          min={1}
          max={PAYLOAD_SIZE_MAX_BYTES}
          step={1}
          value={values.payload_size}
          onChange={setField('payload_size')}
          error={fieldErrors.payload_size}
        />
        <InputField
          label="Messages per device"
          type="number"
          inputMode="numeric"
          min={1}
          max={MESSAGE_COUNT_MAX}
          step={1}
          value={values.message_count}
          onChange={setField('message_count')}
          error={fieldErrors.message_count}
        />
        <InputField
          label="Interval between messages (ms)"
          type="number"
          inputMode="numeric"
          min={0}
          step={1}
          value={values.interval_ms}
          onChange={setField('interval_ms')}
          error={fieldErrors.interval_ms}
        />
      </div>
      <SelectField
        label="Measurement"
        value={values.measurement}
        onChange={setField('measurement')}
        options={MEASUREMENTS.map((m) => ({ value: m, label: MEASUREMENT_LABELS[m] }))}
        error={fieldErrors.measurement}
      />

      <fieldset
        className="fieldset"
        aria-describedby={fieldErrors.device_ids ? devicesErrorId : undefined}
      >
        <legend>Devices</legend>
        {devices.length === 0 ? (
          <p className="muted">
            No devices enrolled yet. <Link to={paths.devices.getHref()}>Enroll one</Link> first.
          </p>
        ) : (
          <ul className="checkbox-list">
            {devices.map((device) => (
              <li key={device.id}>
                <label>
                  <input
                    type="checkbox"
                    checked={values.device_ids.includes(device.id)}
                    onChange={toggleDevice(device.id)}
                    aria-invalid={fieldErrors.device_ids ? true : undefined}
                  />{' '}
                  {device.name}
                  {device.online ? '' : ' (offline)'}
                </label>
              </li>
            ))}
          </ul>
        )}
        {fieldErrors.device_ids ? (
          <p id={devicesErrorId} className="field-error">
            {fieldErrors.device_ids.join(' ')}
          </p>
        ) : null}
      </fieldset>

      <div className="actions">
        <button
          type="submit"
          className="button"
          disabled={busy}
          onClick={() => {
            intentRef.current = 'create';
          }}
        >
          Create
        </button>
        <button
          type="submit"
          className="button button-primary"
          disabled={busy}
          onClick={() => {
            intentRef.current = 'run';
          }}
        >
          Create and run
        </button>
      </div>
    </form>
  );
};
