import type { ReactNode } from 'react';

import { CheckboxList, ChoiceFieldset, toggled } from '@/components/ui/checkbox-list';
import { CheckboxField, InputField, type SelectOption, type SelectOptionGroup } from '@/components/ui/form-field';

import { AXIS_EDITORS, type AxisDraft, type AxisParameter } from './design-axes';

/**
 * What a field needs to become an axis of the design: its axis (if any), and how to turn
 * it on or off and edit its values. The form implements it over its matrix draft.
 */
export type VaryControls = {
  /** The axis that sets the parameter: its own (`vary`) or a linked one; undefined when fixed. */
  axisOf: (parameter: AxisParameter) => AxisDraft | undefined;
  toggle: (parameter: AxisParameter, on: boolean) => void;
  setChoices: (parameter: AxisParameter, choices: string[]) => void;
  setText: (parameter: AxisParameter, text: string) => void;
};

const flatten = (options: readonly (SelectOption | SelectOptionGroup)[]): SelectOption[] =>
  options.flatMap((item) => ('options' in item ? item.options : [item]));

type ChoiceValuesFieldProps = {
  label: string;
  options: readonly (SelectOption | SelectOptionGroup)[];
  selected: readonly string[];
  onChange: (selected: string[]) => void;
  error?: string[];
};

/** A varied select: its options as checkboxes, one run per checked value (in option order). */
const ChoiceValuesField = ({ label, options, selected, onChange, error }: ChoiceValuesFieldProps) => {
  const flat = flatten(options);
  return (
    <ChoiceFieldset legend={label} error={error} className="fieldset field-values">
      <CheckboxList
        className="checkbox-list checkbox-list-single"
        items={flat}
        selected={selected}
        onToggle={(value, checked) => onChange(toggled(flat.map((o) => o.value), selected, value, checked))}
        invalid={error !== undefined && error.length > 0}
      />
    </ChoiceFieldset>
  );
};

const NUMBERS_HINT = 'Several values, comma-separated: one run each.';

type VaryingFieldProps = {
  parameter: AxisParameter;
  label: string;
  vary: VaryControls;
  error?: string[];
  /** A select's options, offered as checkboxes when it varies. */
  options?: readonly (SelectOption | SelectOptionGroup)[];
  /** For a list field (mechanisms, sizes, devices): the noun of "One run per …". */
  splitNoun?: string;
  /** The field as it is when fixed (and, for a list field, always). */
  children: ReactNode;
};

/**
 * A design field that can become an axis: the field, and a "Vary" switch under it. Varied,
 * a select shows its options as checkboxes and a number field takes a comma-separated
 * list; a list field (mechanisms, sizes, devices) stays as it is and runs its items one by
 * one. A parameter set by a linked axis (from a preset or a clone) says so.
 */
export const VaryingField = ({ parameter, label, vary, error, options = [], splitNoun, children }: VaryingFieldProps) => {
  const axis = vary.axisOf(parameter);
  if (axis?.type === 'linked') {
    return (
      <div className="field-varying">
        {children}
        <p className="field-hint">Set by the axis “{axis.name}” below.</p>
      </div>
    );
  }
  const varied = axis !== undefined;
  const editor = AXIS_EDITORS[parameter];
  let field = children;
  if (varied && editor === 'choice') {
    field = (
      <ChoiceValuesField
        label={label}
        options={options}
        selected={axis.choices}
        onChange={(choices) => vary.setChoices(parameter, choices)}
        error={error}
      />
    );
  } else if (varied && editor === 'numbers') {
    field = (
      <InputField
        label={label}
        type="text"
        inputMode="numeric"
        value={axis.text}
        onChange={(event) => vary.setText(parameter, event.target.value)}
        hint={NUMBERS_HINT}
        error={error}
      />
    );
  }
  const toggleLabel = editor === 'split' ? `One run per ${splitNoun ?? 'item'}` : 'Vary';
  return (
    <div className="field-varying">
      {field}
      <CheckboxField
        label={toggleLabel}
        aria-label={editor === 'split' ? toggleLabel : `Vary ${label}`}
        className="field-vary"
        checked={varied}
        onChange={(event) => vary.toggle(parameter, event.target.checked)}
      />
    </div>
  );
};
