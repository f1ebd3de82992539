import { useId, type ReactNode } from 'react';

export type CheckboxItem = { value: string; label: ReactNode; disabled?: boolean };

type CheckboxListProps = {
  items: readonly CheckboxItem[];
  /** The checked items' values. */
  selected: readonly string[];
  onToggle: (value: string, checked: boolean) => void;
  /** Marks every box invalid (the group's error is shown by its fieldset). */
  invalid?: boolean;
  /** `checkbox-list` by default; e.g. `checkbox-list checkbox-list-single` for one a line. */
  className?: string;
};

/** A list of labelled checkboxes, one for each item: a set of choices within a fieldset. */
export const CheckboxList = ({ items, selected, onToggle, invalid = false, className = 'checkbox-list' }: CheckboxListProps) => (
  <ul className={className}>
    {items.map((item) => (
      <li key={item.value}>
        <label>
          <input
            type="checkbox"
            checked={selected.includes(item.value)}
            disabled={item.disabled}
            onChange={(event) => onToggle(item.value, event.target.checked)}
            aria-invalid={invalid ? true : undefined}
          />{' '}
          {item.label}
        </label>
      </li>
    ))}
  </ul>
);

/**
 * `selected` with `value` checked or not, in the order of `order` (what the user sees),
 * whatever the click order.
 */
export const toggled = (order: readonly string[], selected: readonly string[], value: string, checked: boolean) =>
  order.filter((v) => (v === value ? checked : selected.includes(v)));

type ChoiceFieldsetProps = {
  legend: ReactNode;
  /** Advice about the choice, read with the group (like a field's hint). */
  hint?: ReactNode;
  error?: string[];
  className?: string;
  /** The choices: a CheckboxList, or groups of them. */
  children: ReactNode;
};

/**
 * A group of choices with its legend, hint and error, the error linked through
 * `aria-describedby` as a single field's is (see ./form-field.tsx).
 */
export const ChoiceFieldset = ({ legend, hint, error, className = 'fieldset', children }: ChoiceFieldsetProps) => {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const invalid = error !== undefined && error.length > 0;
  const describedBy = [hint ? hintId : null, invalid ? errorId : null].filter(Boolean).join(' ');
  return (
    <fieldset className={className} aria-describedby={describedBy || undefined}>
      <legend>{legend}</legend>
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      {children}
      {invalid ? (
        <p id={errorId} className="field-error">
          {error.join(' ')}
        </p>
      ) : null}
    </fieldset>
  );
};
