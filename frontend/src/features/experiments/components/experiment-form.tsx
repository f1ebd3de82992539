import { useMemo, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';

import { CheckboxList } from '@/components/ui/checkbox-list';
import { ErrorAlert, errorMessage, submitErrorOf } from '@/components/ui/error-alert';
import { CheckboxField, InputField, SelectField, TextAreaField } from '@/components/ui/form-field';
import { paths } from '@/config/paths';
import { useDebouncedValue } from '@/hooks/use-debounced-value';
import type { Catalogue, DesignExclusion, Device, Experiment, ExperimentKind, Run } from '@/types/api';

import { DESCRIPTION_MAX_CHARS, useCreateExperiment } from '../api/create-experiment';
import { usePlan } from '../api/plan-design';
import { useStartRun } from '../api/start-run';
import type { KindFormOptions } from '../kinds';
import { KindFields } from '../kinds/kind-fields';

import { groupByFamily, labelOf } from './catalogue';
import { parseDataSizes } from './data-sizes';
import {
  AXIS_EDITORS,
  axisParameters,
  liveExclusions,
  sameValue,
  type AxisDraft,
  type AxisParameter,
} from './design-axes';
import {
  axesOf,
  initialValues,
  isKind,
  planInput,
  splitServerErrors,
  validateForm,
  type Drafts,
  type FieldErrorMap,
  type FieldName,
  type FormValues,
  type TextFieldOf,
} from './experiment-form-values';
import { describeCell, type ValueNames } from './labels';
import { MatrixFieldset } from './matrix-fieldset';
import { networkProfileOptions, type NetworkProfileChoice } from './network-profile-options';
import { PlanPanel } from './plan-panel';
import type { VaryControls } from './vary-controls';

// Long enough not to ask for a plan at every keystroke, short enough to feel live.
const PLAN_DEBOUNCE_MS = 400;

type Intent = 'create' | 'run';

type ExperimentFormProps = {
  devices: readonly Pick<Device, 'id' | 'name' | 'online'>[];
  catalogue: Catalogue;
  /** What a messaging experiment may be measured under; none when left out or empty. */
  networkProfiles?: readonly NetworkProfileChoice[];
  /** A design to start from (a preset, a clone); the defaults otherwise. */
  initial?: FormValues;
  onCreated: (experiment: Experiment) => void;
  /** The first run of the experiment's matrix was queued. */
  onRunStarted: (run: Run, experiment: Experiment) => void;
};

const NO_PROFILES: readonly NetworkProfileChoice[] = [];

export const ExperimentForm = ({
  devices,
  catalogue,
  networkProfiles = NO_PROFILES,
  initial,
  onCreated,
  onRunStarted,
}: ExperimentFormProps) => {
  const [values, setValues] = useState<FormValues>(() => initial ?? initialValues(devices));
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
  const fieldOptions: KindFormOptions = useMemo(
    () => ({
      catalogue,
      securityOptions,
      networkProfileOptions: profileOptions,
      devices,
      deviceIds: values.device_ids,
    }),
    [catalogue, securityOptions, profileOptions, devices, values.device_ids],
  );

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

  const setOrderSeed = (order_seed: string) => {
    setValues((prev) => ({ ...prev, order_seed }));
    clearError('order_seed');
  };

  const toggleDevice = (deviceId: string, checked: boolean) => {
    setValues((prev) => ({
      ...prev,
      device_ids: checked
        ? [...prev.device_ids, deviceId]
        : prev.device_ids.filter((id) => id !== deviceId),
    }));
    clearError('device_ids');
  };

  // --- the matrix ---------------------------------------------------------------------------

  const updateMatrix = (update: (matrix: FormValues['matrix'][ExperimentKind]) => FormValues['matrix'][ExperimentKind]) => {
    setValues((prev) => ({ ...prev, matrix: { ...prev.matrix, [prev.kind]: update(prev.matrix[prev.kind]) } }));
    clearError('axes');
    clearError('exclusions');
  };

  const updateAxis = (parameter: AxisParameter, update: (axis: Extract<AxisDraft, { type: 'vary' }>) => AxisDraft) =>
    updateMatrix((matrix) => ({
      ...matrix,
      axes: matrix.axes.map((axis) => (axis.type === 'vary' && axis.parameter === parameter ? update(axis) : axis)),
    }));

  /** A field's value as the first value of its new axis, so turning "Vary" on changes nothing yet. */
  const startingAxis = (parameter: AxisParameter): AxisDraft => {
    const draft: Record<string, unknown> = values.drafts[values.kind];
    const value = draft[parameter];
    const current = typeof value === 'string' ? value : '';
    return {
      type: 'vary',
      parameter,
      choices: AXIS_EDITORS[parameter] === 'choice' ? [current] : [],
      text: AXIS_EDITORS[parameter] === 'numbers' ? current : '',
    };
  };

  const vary: VaryControls = {
    axisOf: (parameter) => values.matrix[values.kind].axes.find((axis) => axisParameters(axis).includes(parameter)),
    toggle: (parameter, on) => {
      updateMatrix((matrix) => ({
        ...matrix,
        axes: on
          ? [...matrix.axes, startingAxis(parameter)]
          : matrix.axes.filter((axis) => !(axis.type === 'vary' && axis.parameter === parameter)),
      }));
      clearError(parameter);
    },
    setChoices: (parameter, choices) => {
      updateAxis(parameter, (axis) => ({ ...axis, choices }));
      clearError(parameter);
    },
    setText: (parameter, text) => {
      updateAxis(parameter, (axis) => ({ ...axis, text }));
      clearError(parameter);
    },
  };

  const names: ValueNames = useMemo(
    () => ({
      mechanism: (name) => labelOf(catalogue.mechanisms, name),
      device: (id) => devices.find((d) => d.id === id)?.name ?? id,
      profile: (id) => networkProfiles.find((p) => p.id === id)?.name ?? id,
    }),
    [catalogue.mechanisms, devices, networkProfiles],
  );
  const describe = (cell: Record<string, unknown>) => describeCell(cell, names);

  const sizes = values.kind === 'messaging' ? null : parseDataSizes(values.drafts[values.kind].data_sizes);
  const matrix = axesOf(values, sizes?.ok ? sizes.sizes : []);
  const matrixDraft = values.matrix[values.kind];

  // The plan of the design as it stands, asked for once the user pauses.
  const planBody = useDebouncedValue(planInput(values), PLAN_DEBOUNCE_MS);
  const plan = usePlan({ input: planBody });

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
      const { byField, message } = submitErrorOf(error, (fieldErrors) => splitServerErrors(values.kind, fieldErrors));
      if (byField) setFieldErrors(byField);
      setFormError(message);
      return;
    }

    if (intentRef.current === 'create') {
      onCreated(experiment);
      return;
    }
    try {
      onRunStarted(await startRun.mutateAsync({ experimentId: experiment.id }), experiment);
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
      <TextAreaField
        label="Description (optional)"
        className="field-wide"
        value={values.description}
        maxLength={DESCRIPTION_MAX_CHARS}
        hint={
          values.description_generated || values.description.trim() === ''
            ? 'Written from the design when you save (it follows your changes); type your own to keep it.'
            : undefined
        }
        onChange={(event) => {
          const { value } = event.target;
          setValues((prev) => ({ ...prev, description: value, description_generated: false }));
          clearError('description');
        }}
        error={fieldErrors.description}
      />

      <KindFields
        kind={values.kind}
        props={{
          draft: values.drafts[values.kind],
          matrix: values.matrix[values.kind],
          errors: fieldErrors,
          onChange: setDraftField(values.kind),
          setDraft: (update) => updateDraft(values.kind, update),
          clearError,
          vary,
          options: fieldOptions,
        }}
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
          <CheckboxList
            items={devices.map((device) => ({
              value: device.id,
              label: `${device.name}${device.online ? '' : ' (offline)'}`,
            }))}
            selected={values.device_ids}
            onToggle={toggleDevice}
            invalid={fieldErrors.device_ids !== undefined}
          />
        )}
        {fieldErrors.device_ids ? (
          <p id={devicesErrorId} className="field-error">
            {fieldErrors.device_ids.join(' ')}
          </p>
        ) : null}
        {devices.length > 1 ? (
          <CheckboxField
            label="One run per device"
            checked={vary.axisOf('device_ids') !== undefined}
            onChange={(event) => vary.toggle('device_ids', event.target.checked)}
          />
        ) : null}
      </fieldset>

      <MatrixFieldset
        axes={matrix.axes}
        linked={matrix.origins.map((origin) => matrixDraft.axes[origin]?.type === 'linked')}
        exclusions={liveExclusions(matrix.axes, matrixDraft.exclusions)}
        repeats={values.repeats}
        orderSeed={values.order_seed}
        onRemoveAxis={(index) =>
          updateMatrix((draft) => ({ ...draft, axes: draft.axes.filter((_, i) => i !== matrix.origins[index]) }))
        }
        onAddExclusion={(exclusion: DesignExclusion) =>
          updateMatrix((draft) => ({
            ...draft,
            exclusions: draft.exclusions.some((e) => sameValue(e, exclusion))
              ? draft.exclusions
              : [...draft.exclusions, exclusion],
          }))
        }
        onRemoveExclusion={(exclusion) =>
          updateMatrix((draft) => ({ ...draft, exclusions: draft.exclusions.filter((e) => !sameValue(e, exclusion)) }))
        }
        onRepeatsChange={(event) => {
          const { value } = event.target;
          setValues((prev) => ({ ...prev, repeats: value }));
          clearError('repeats');
        }}
        onOrderSeedChange={(event) => setOrderSeed(event.target.value)}
        describe={describe}
        errors={{
          axes: fieldErrors.axes,
          exclusions: fieldErrors.exclusions,
          repeats: fieldErrors.repeats,
          order_seed: fieldErrors.order_seed,
        }}
      />

      <PlanPanel
        plan={plan.data}
        ready={planBody !== null}
        isFetching={plan.isFetching}
        error={plan.error}
        seedGiven={planBody?.order_seed !== undefined}
        onUseSeed={(seed) => setOrderSeed(String(seed))}
      />

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
