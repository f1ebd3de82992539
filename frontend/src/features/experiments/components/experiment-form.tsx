import { useMemo, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';

import { ErrorAlert, errorMessage } from '@/components/ui/error-alert';
import { InputField, SelectField } from '@/components/ui/form-field';
import { paths } from '@/config/paths';
import { isApiError } from '@/lib/api-client';
import type { Catalogue, Device, Experiment, ExperimentKind, Run } from '@/types/api';

import { useCreateExperiment } from '../api/create-experiment';
import { useStartRun } from '../api/start-run';

import { benchMechanisms, groupByFamily } from './catalogue';
import {
  initialValues,
  isKind,
  splitServerErrors,
  validateForm,
  type Drafts,
  type FieldErrorMap,
  type FieldName,
  type FormValues,
  type TextFieldOf,
} from './experiment-form-values';
import { CipherBenchFields, MessagingFields, ThroughputFields } from './experiment-kind-fields';
import { networkProfileOptions, type NetworkProfileChoice } from './network-profile-options';

type Intent = 'create' | 'run';

type ExperimentFormProps = {
  devices: readonly Pick<Device, 'id' | 'name' | 'online'>[];
  catalogue: Catalogue;
  /** What a messaging experiment may be measured under; none when left out or empty. */
  networkProfiles?: readonly NetworkProfileChoice[];
  onCreated: (experiment: Experiment) => void;
  onRunStarted: (run: Run) => void;
};

const NO_PROFILES: readonly NetworkProfileChoice[] = [];

export const ExperimentForm = ({
  devices,
  catalogue,
  networkProfiles = NO_PROFILES,
  onCreated,
  onRunStarted,
}: ExperimentFormProps) => {
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
  const profileOptions = useMemo(() => networkProfileOptions(networkProfiles), [networkProfiles]);
  const benchFamilies = useMemo(() => groupByFamily(benchMechanisms(catalogue.mechanisms)), [catalogue.mechanisms]);
  // A throughput experiment compares every mechanism with "none", so it offers them all.
  const allFamilies = useMemo(() => groupByFamily(catalogue.mechanisms), [catalogue.mechanisms]);

  const clearError = (name: FieldName) => setFieldErrors(({ [name]: _cleared, ...rest }) => rest);

  const updateDraft = <K extends ExperimentKind>(kind: K, update: (draft: Drafts[K]) => Drafts[K]) =>
    setValues((prev) => ({ ...prev, drafts: { ...prev.drafts, [kind]: update(prev.drafts[kind]) } }));

  const setName = (event: ChangeEvent<HTMLInputElement>) => {
    setValues((prev) => ({ ...prev, name: event.target.value }));
    clearError('name');
  };

  const setDraftField =
    <K extends ExperimentKind>(kind: K) =>
    (field: TextFieldOf<K>) =>
    (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
      const { value } = event.target;
      updateDraft(kind, (draft) => ({ ...draft, [field]: value }));
      clearError(field);
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

  const toggleMechanism = (kind: 'cipher_bench' | 'throughput') => (name: string, checked: boolean) => {
    updateDraft(kind, (draft) => ({
      ...draft,
      // Catalogue order, whatever the click order: the run's results are listed that way.
      mechanisms: catalogue.mechanisms
        .map((m) => m.name)
        .filter((m) => (m === name ? checked : draft.mechanisms.includes(m))),
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
          onChange={setName}
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
        <MessagingFields
          draft={values.drafts.messaging}
          errors={fieldErrors}
          onChange={setDraftField('messaging')}
          securityOptions={securityOptions}
          networkProfileOptions={profileOptions}
        />
      ) : null}
      {values.kind === 'cipher_bench' ? (
        <CipherBenchFields
          draft={values.drafts.cipher_bench}
          errors={fieldErrors}
          onChange={setDraftField('cipher_bench')}
          families={benchFamilies}
          onToggleMechanism={toggleMechanism('cipher_bench')}
        />
      ) : null}
      {values.kind === 'throughput' ? (
        <ThroughputFields
          draft={values.drafts.throughput}
          errors={fieldErrors}
          onChange={setDraftField('throughput')}
          families={allFamilies}
          onToggleMechanism={toggleMechanism('throughput')}
        />
      ) : null}

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
