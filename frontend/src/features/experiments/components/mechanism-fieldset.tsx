import type { ReactNode } from 'react';

import { CheckboxList, ChoiceFieldset } from '@/components/ui/checkbox-list';

import type { MechanismFamily } from './catalogue';

type MechanismFieldsetProps = {
  families: readonly MechanismFamily[];
  selected: readonly string[];
  onToggle: (name: string, checked: boolean) => void;
  /** Advice about the choice, read with the group (like a field's hint). */
  hint?: ReactNode;
  error?: string[];
  /** The group's name: "Mechanisms" unless given. */
  legend?: string;
};

/** "Mechanisms" checkboxes of a cipher benchmark or throughput experiment, one group per family. */
export const MechanismFieldset = ({
  families,
  selected,
  onToggle,
  hint,
  error,
  legend = 'Mechanisms',
}: MechanismFieldsetProps) => (
  <ChoiceFieldset legend={legend} hint={hint} error={error}>
    <div className="mechanism-families">
      {families.map(({ family, mechanisms }) => (
        <fieldset key={family} className="mechanism-family">
          <legend>{family}</legend>
          <CheckboxList
            className="checkbox-list checkbox-list-single"
            items={mechanisms.map((m) => ({ value: m.name, label: m.label }))}
            selected={selected}
            onToggle={onToggle}
            invalid={error !== undefined && error.length > 0}
          />
        </fieldset>
      ))}
    </div>
  </ChoiceFieldset>
);
