import { useId, type ChangeEvent } from 'react';

import type { MechanismFamily } from './catalogue';

type MechanismFieldsetProps = {
  families: readonly MechanismFamily[];
  selected: readonly string[];
  onToggle: (name: string, checked: boolean) => void;
  error?: string[];
};

/** "Mechanisms" checkboxes of a cipher benchmark, one group per family. */
export const MechanismFieldset = ({ families, selected, onToggle, error }: MechanismFieldsetProps) => {
  const errorId = `${useId()}-error`;
  const invalid = error !== undefined && error.length > 0;
  return (
    <fieldset className="fieldset" aria-describedby={invalid ? errorId : undefined}>
      <legend>Mechanisms</legend>
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
