import { useMemo, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';

import { ErrorAlert, errorMessage } from '@/components/ui/error-alert';
import { InputField, SelectField } from '@/components/ui/form-field';
import { paths } from '@/config/paths';
import { isApiError } from '@/lib/api-client';
import type { Catalogue, Device, Experiment, Run } from '@/types/api';

import {
  BENCH_REPETITIONS_MAX,
  MEASUREMENTS,
  MESSAGE_COUNT_MAX,
  PAYLOAD_SIZE_MAX_BYTES,
  PROTOCOLS,
  QOS_LEVELS,
  useCreateExperiment,
} from '../api/create-experiment';
import { useStartRun } from '../api/start-run';

import { benchMechanisms, groupByFamily } from './catalogue';
import { DATA_SIZES_HINT } from './data-sizes';
import {
  initialValues,
  isKind,
  splitServerErrors,
  validateForm,
  type FieldErrorMap,
  type FieldName,
  type FormValues,
  type TextField,
} from './experiment-form-values';
import { MEASUREMENT_LABELS, PROTOCOL_LABELS } from './labels';
import { MechanismFieldset } from './mechanism-fieldset';

type Intent = 'create' | 'run';

type ExperimentFormProps = {
  devices: readonly Pick<Device, 'id' | 'name' | 'online'>[];
  catalogue: Catalogue;
  onCreated: (experiment: Experiment) => void;
  onRunStarted: (run: Run) => void;
};

export const ExperimentForm = ({ devices, catalogue, onCreated, onRunStarted }: ExperimentFormProps) => {
  const [values, setValues] = useState<FormValues>(() => initialValues(devices));
  const [fieldErrors, setFieldErrors] = useState<FieldErrorMap>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [createdButNotRun, setCreatedButNotRun] = useState<Experiment | null>(null);
  // Set by the clicked submit button's onClick, which fires before the form's submit.
  const intentRef = useRef<Intent>('create');

  const createExperiment = useCreateExperiment();
  const startRun = useStartRun();
  const busy = createExperiment.isPending || startRun.isPending;

  const kindOptions = catalogue.experiment_kinds
    .filter((kind) => isKind(kind.name))
    .map((kind) => ({ value: kind.name, label: kind.label }));
  const securityOptions = useMemo(
    () =>
      groupByFamily(catalogue.mechanisms).map(({ family, mechanisms }) => ({
        label: family,
        options: mechanisms.map((m) => ({ value: m.name, label: m.label })),
      })),
    [catalogue.mechanisms],
  );
  const benchable = useMemo(() => benchMechanisms(catalogue.mechanisms), [catalogue.mechanisms]);
  const benchFamilies = useMemo(() => groupByFamily(benchable), [benchable]);

  const clearError = (name: FieldName) => setFieldErrors(({ [name]: _cleared, ...rest }) => rest);

  const setField = (name: TextField) => (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
    setValues((prev) => ({ ...prev, [name]: event.target.value }));
    clearError(name);
  };

  const setKind = (event: ChangeEvent<HTMLSelectElement>) => {
    const kind = event.target.value;
    if (!isKind(kind)) return;
    setValues((prev) => ({ ...prev, kind }));
    // The errors were about the other kind's fields.
    setFieldErrors({});
    setFormError(null);
  };

  const toggleDevice = (deviceId: string) => (event: ChangeEvent<HTMLInputElement>) => {
    const { checked } = event.target;
    setValues((prev) => ({
      ...prev,
      device_ids: checked
        ? [...prev.device_ids, deviceId]
        : prev.device_ids.filter((id) => id !== deviceId),
    }));
    clearError('device_ids');
  };

  const toggleMechanism = (name: string, checked: boolean) => {
    setValues((prev) => ({
      ...prev,
      // Catalogue order, whatever the click order: the run's results are listed that way.
      mechanisms: benchable
        .map((m) => m.name)
        .filter((m) => (m === name ? checked : prev.mechanisms.includes(m))),
    }));
    clearError('mechanisms');
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFormError(null);
    setCreatedButNotRun(null);

    const validated = validateForm(values);
    if (!validated.ok) {
      setFieldErrors(validated.errors);
      setFormError('Please correct the highlighted fields.');
      return;
    }
    setFieldErrors({});

    let experiment: Experiment;
    try {
      experiment = await createExperiment.mutateAsync(validated.input);
    } catch (error) {
      if (isApiError(error) && Object.keys(error.fieldErrors).length > 0) {
        const { byField, other } = splitServerErrors(values.kind, error.fieldErrors);
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

      <div className="field-row">
        <InputField
          label="Name"
          type="text"
          value={values.name}
          onChange={setField('name')}
          error={fieldErrors.name}
          required
        />
        <SelectField
          label="Kind"
          value={values.kind}
          onChange={setKind}
          options={kindOptions}
          error={fieldErrors.kind}
        />
      </div>

      {values.kind === 'messaging' ? (
        <>
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
              options={securityOptions}
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
        </>
      ) : (
        <>
          <MechanismFieldset
            families={benchFamilies}
            selected={values.mechanisms}
            onToggle={toggleMechanism}
            error={fieldErrors.mechanisms}
          />
          <div className="field-row">
            <InputField
              label="Data sizes"
              type="text"
              className="field-wide"
              value={values.data_sizes}
              onChange={setField('data_sizes')}
              hint={DATA_SIZES_HINT}
              error={fieldErrors.data_sizes}
            />
            <InputField
              label="Repetitions"
              type="number"
              inputMode="numeric"
              min={1}
              max={BENCH_REPETITIONS_MAX}
              step={1}
              value={values.repetitions}
              onChange={setField('repetitions')}
              error={fieldErrors.repetitions}
            />
          </div>
        </>
      )}

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
