import { useId, type ChangeEvent, type ReactNode } from 'react';

import type { MechanismFamily } from './catalogue';

type MechanismFieldsetProps = {
  families: readonly MechanismFamily[];
  selected: readonly string[];
  onToggle: (name: string, checked: boolean) => void;
  /** Advice about the choice, read with the group (like a field's hint). */
  hint?: ReactNode;
  error?: string[];
};

/** "Mechanisms" checkboxes of a cipher benchmark or throughput experiment, one group per family. */
export const MechanismFieldset = ({ families, selected, onToggle, hint, error }: MechanismFieldsetProps) => {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const invalid = error !== undefined && error.length > 0;
  const describedBy = [hint ? hintId : null, invalid ? errorId : null].filter(Boolean).join(' ');
  return (
    <fieldset className="fieldset" aria-describedby={describedBy || undefined}>
      <legend>Mechanisms</legend>
      {hint ? (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      ) : null}
      <div className="mechanism-families">
        {families.map(({ family, mechanisms }) => (
          <fieldset key={family} className="mechanism-family">
            <legend>{family}</legend>
            <ul className="checkbox-list checkbox-list-single">
              {mechanisms.map((mechanism) => (
                <li key={mechanism.name}>
                  <label>
                    <input
                      type="checkbox"
                      checked={selected.includes(mechanism.name)}
                      onChange={(event: ChangeEvent<HTMLInputElement>) =>
                        onToggle(mechanism.name, event.target.checked)
                      }
                      aria-invalid={invalid ? true : undefined}
                    />{' '}
                    {mechanism.label}
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        ))}
      </div>
      {invalid ? (
        <p id={errorId} className="field-error">
          {error.join(' ')}
        </p>
      ) : null}
    </fieldset>
  );
};
