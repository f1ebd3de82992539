import { CheckboxList } from '@/components/ui/checkbox-list';

import { COMPARE_RUNS_MAX } from '../api/get-comparison';

import { toggleRun } from './compare-data';

/** A run that can be compared, with how the user recognises it. */
export type CompareCandidate = { id: string; label: string };

type ComparePickerProps = {
  candidates: readonly CompareCandidate[];
  selected: readonly string[];
  onChange: (selection: string[]) => void;
};

/** Checkboxes over the workspace's completed messaging runs; at most COMPARE_RUNS_MAX at once. */
export const ComparePicker = ({ candidates, selected, onChange }: ComparePickerProps) => {
  const full = selected.length >= COMPARE_RUNS_MAX;
  return (
    <fieldset className="fieldset">
      <legend>Runs to compare</legend>
      {candidates.length === 0 ? (
        <p className="empty">No completed messaging runs yet.</p>
      ) : (
        <CheckboxList
          className="compare-picker"
          items={candidates.map((candidate) => ({
            value: candidate.id,
            label: candidate.label,
            disabled: full && !selected.includes(candidate.id),
          }))}
          selected={selected}
          onToggle={(id) => onChange(toggleRun(selected, id))}
        />
      )}
      {full ? <p className="muted">At most {COMPARE_RUNS_MAX} runs can be compared at once.</p> : null}
    </fieldset>
  );
};
