import { useMemo, useState, type FormEvent } from 'react';

import { ErrorAlert, submitErrorOf } from '@/components/ui/error-alert';
import { InputField, RadioOption, TextAreaField } from '@/components/ui/form-field';
import type { NetworkProfileDetail } from '@/types/api';

import { PROFILE_NAME_MAX, useCreateNetworkProfile } from '../api/create-network-profile';
import { useNetworkProfiles } from '../api/get-network-profiles';
import { parseLinkSpec, tablesOf, type ShapedDirection } from '../api/link-spec';
import { useUpdateNetworkProfile } from '../api/update-network-profile';

import { DirectionFieldset } from './direction-fieldset';
import { DIRECTION_LABELS } from './labels';
import {
  buildDirection,
  changedFields,
  newProfileValues,
  profileToFormValues,
  splitServerErrors,
  validateProfileForm,
  type DirectionField,
  type DirectionMode,
  type DirectionValues,
  type ProfileFieldErrors,
  type ProfileFieldKey,
  type ProfileFormValues,
} from './profile-form-values';


/** The measured tables a spec can name: those the catalogue's measured_table profiles use. */
const useMeasuredTables = (enabled: boolean) => {
  // The API has no list of tables; every measured table has one catalogue profile that names it.
  const profiles = useNetworkProfiles({ filters: { kind: 'measured_table' }, queryConfig: { enabled } });
  const tables = useMemo(
    () => (profiles.data ? profiles.data.flatMap((p) => tablesOf(parseLinkSpec(p.spec))) : null),
    [profiles.data],
  );
  const hint = profiles.isError
    ? 'The catalogue’s tables could not be loaded: type the table’s name.'
    : profiles.isPending && enabled
      ? 'Loading the catalogue’s tables…'
      : undefined;
  return { tables: tables && tables.length > 0 ? tables : null, hint };
};

const directionErrors = (errors: ProfileFieldErrors, direction: ShapedDirection) => {
  const prefix = `${direction}.`;
  return Object.fromEntries(
    Object.entries(errors)
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, messages]) => [key.slice(prefix.length), messages]),
  ) as Partial<Record<DirectionField, string[]>>;
};

/** The field whose error a change clears: the keep-checkbox's is the loss model's. */
const errorFieldOf = (field: keyof DirectionValues): DirectionField =>
  field === 'keep_loss_gemodel' ? 'loss_gemodel' : field;

type ProfileFormProps = {
  /** The profile to change (a PATCH of what changed); without one the form creates a profile. */
  profile?: NetworkProfileDetail;
  /** After a save: the profile as the server answered (a new one: its page opens next). */
  onSaved?: (profile: NetworkProfileDetail) => void;
};

/** Create or change a workspace's profile: its name, notes and netem settings per direction. */
export const ProfileForm = ({ profile, onSaved }: ProfileFormProps) => {
  const original = useMemo(() => (profile ? profileToFormValues(profile) : newProfileValues()), [profile]);
  const [values, setValues] = useState<ProfileFormValues>(original);
  const [errors, setErrors] = useState<ProfileFieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const create = useCreateNetworkProfile();
  const update = useUpdateNetworkProfile();
  const busy = create.isPending || update.isPending;

  const usesTables = values.egress.distribution === 'table' || (values.mode === 'separate' && values.ingress.distribution === 'table');
  const measured = useMeasuredTables(usesTables);

  const clearError = (key: ProfileFieldKey) => setErrors(({ [key]: _cleared, ...rest }) => rest);

  const setText = (field: 'name' | 'description' | 'citation', value: string) => {
    setValues((previous) => ({ ...previous, [field]: value }));
    clearError(field);
    setNotice('');
  };

  const setDirection =
    (direction: ShapedDirection) =>
    <F extends keyof DirectionValues>(field: F, value: DirectionValues[F]) => {
      setValues((previous) => ({ ...previous, [direction]: { ...previous[direction], [field]: value } }));
      clearError(`${direction}.${errorFieldOf(field)}`);
      setNotice('');
    };

  const setMode = (mode: DirectionMode) => {
    setValues((previous) => {
      if (previous.mode === mode) return previous;
      if (mode === 'separate') {
        // Start both directions from the shared settings; change either from there.
        return { ...previous, mode, ingress: { ...previous.egress } };
      }
      // One set for both: the shaped direction's, egress when both are (or neither is).
      const egressShaped = buildDirection(previous.egress).spec !== undefined;
      const ingressShaped = buildDirection(previous.ingress).spec !== undefined;
      const shared = !egressShaped && ingressShaped ? previous.ingress : previous.egress;
      return { ...previous, mode, egress: { ...shared }, ingress: { ...shared } };
    });
    setErrors({});
    setNotice('');
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFormError(null);
    setNotice('');
    const validated = validateProfileForm(values);
    if (!validated.ok) {
      setErrors(validated.errors);
      setFormError('Please correct the highlighted fields.');
      return;
    }
    setErrors({});
    try {
      if (profile) {
        const changes = changedFields(original, validated.input);
        if (Object.keys(changes).length === 0) {
          setNotice('Nothing to save: nothing was changed.');
          return;
        }
        const saved = await update.mutateAsync({ profileId: profile.id, data: changes });
        setNotice('Saved.');
        onSaved?.(saved);
      } else {
        onSaved?.(await create.mutateAsync({ data: validated.input }));
      }
    } catch (error) {
      const { byField, message } = submitErrorOf(error, (fieldErrors) => splitServerErrors(fieldErrors, values));
      if (byField) setErrors(byField);
      setFormError(message);
    }
  };

  const modeOption = (mode: DirectionMode, label: string) => (
    <RadioOption
      label={label}
      name="direction_mode"
      value={mode}
      checked={values.mode === mode}
      onChange={() => setMode(mode)}
    />
  );

  const directionFieldset = (direction: ShapedDirection, legend: string) => (
    <DirectionFieldset
      key={direction}
      legend={legend}
      values={values[direction]}
      errors={directionErrors(errors, direction)}
      onChange={setDirection(direction)}
      tables={measured.tables}
      tablesHint={measured.hint}
    />
  );

  return (
    <form
      className="form form-wide"
      noValidate
      onSubmit={(event) => void handleSubmit(event)}
      aria-label={profile ? 'Change the profile' : 'New profile'}
    >
      {formError ? <ErrorAlert message={formError} /> : null}
      <fieldset className="fieldset-plain" disabled={busy}>
        <div className="field-row">
          <InputField
            label="Name"
            type="text"
            required
            maxLength={PROFILE_NAME_MAX}
            value={values.name}
            onChange={(event) => setText('name', event.target.value)}
            error={errors.name}
          />
        </div>
        <TextAreaField
          label="Description"
          value={values.description}
          onChange={(event) => setText('description', event.target.value)}
          error={errors.description}
        />
        <TextAreaField
          label="Source"
          value={values.citation}
          onChange={(event) => setText('citation', event.target.value)}
          error={errors.citation}
          hint="Where the figures come from: a paper, a measurement, a trial."
        />
        <div className="radio-row" role="radiogroup" aria-label="Directions">
          {modeOption('both', 'Both directions alike')}
          {modeOption('separate', 'Each direction on its own')}
        </div>
        {values.mode === 'both'
          ? directionFieldset('egress', DIRECTION_LABELS.both)
          : [
              directionFieldset('egress', DIRECTION_LABELS.egress),
              directionFieldset('ingress', DIRECTION_LABELS.ingress),
            ]}
        <p className="field-hint">
          All zeros shape nothing. Netem’s rules the server checks: a distribution needs jitter, reordering
          needs a delay, a measured table needs its µ as the delay and its σ as the jitter.
        </p>
        <div className="actions">
          <button type="submit" className="button button-primary">
            {busy ? 'Saving…' : profile ? 'Save changes' : 'Create profile'}
          </button>
          <span aria-live="polite">{notice}</span>
        </div>
      </fieldset>
    </form>
  );
};
