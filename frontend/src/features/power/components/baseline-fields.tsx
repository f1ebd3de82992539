import { InputField, SelectField } from '@/components/ui/form-field';
import { formatDecimal } from '@/lib/format';
import type { PowerTrace } from '@/types/api';

import {
  BASELINE_MODE_LABELS,
  BASELINE_MODES,
  isBaselineMode,
  type BaselineField,
  type BaselineFormValues,
} from './baseline-values';
import { baselineLabel } from './traces-table';

type BaselineFieldsProps = {
  /** The select's label, e.g. "Baseline" or "Idle power". */
  label: string;
  hint: string;
  values: BaselineFormValues;
  errors: Partial<Record<BaselineField, string[]>>;
  onChange: (update: Partial<BaselineFormValues>) => void;
  /** Parsed baseline traces to choose from. */
  baselines: readonly PowerTrace[];
  /** The trace's supply voltage, which turns a constant current into power; null when unknown. */
  supplyVoltage: number | null;
};

/** How a baseline is given, and the one field that gives it. */
export const BaselineFields = ({
  label,
  hint,
  values,
  errors,
  onChange,
  baselines,
  supplyVoltage,
}: BaselineFieldsProps) => (
  <>
    <SelectField
      label={label}
      value={values.baseline_mode}
      onChange={(event) => {
        const { value } = event.target;
        if (isBaselineMode(value)) onChange({ baseline_mode: value });
      }}
      options={BASELINE_MODES.map((mode) => ({ value: mode, label: BASELINE_MODE_LABELS[mode] }))}
      hint={hint}
    />
    {values.baseline_mode === 'power' ? (
      <InputField
        label={`${label}: power (W)`}
        type="number"
        min={0}
        step="any"
        value={values.baseline_w}
        onChange={(event) => onChange({ baseline_w: event.target.value })}
        error={errors.baseline_w}
      />
    ) : null}
    {values.baseline_mode === 'current' ? (
      <InputField
        label={`${label}: current (mA)`}
        type="number"
        min={0}
        step="any"
        value={values.baseline_ma}
        onChange={(event) => onChange({ baseline_ma: event.target.value })}
        error={errors.baseline_ma}
        hint={
          supplyVoltage === null
            ? "At the trace's supply voltage."
            : `At the supply voltage, ${formatDecimal(supplyVoltage, 2)} V.`
        }
      />
    ) : null}
    {values.baseline_mode === 'trace' ? (
      <SelectField
        label={`${label}: trace`}
        value={values.baseline_trace}
        onChange={(event) => onChange({ baseline_trace: event.target.value })}
        options={[
          { value: '', label: baselines.length ? 'Choose a baseline' : 'No parsed baselines yet' },
          ...baselines.map((t) => ({ value: t.id, label: baselineLabel(t) })),
        ]}
        error={errors.baseline_trace}
      />
    ) : null}
  </>
);
