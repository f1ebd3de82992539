import type { ChangeEvent } from 'react';

import { CheckboxField, InputField, SelectField, type SelectOption } from '@/components/ui/form-field';

import {
  DISTRIBUTIONS,
  MAX_DELAY_MS,
  MAX_LIMIT,
  MAX_RATE_KBIT,
  type Distribution,
} from '../api/link-spec';

import { DISTRIBUTION_LABELS } from './labels';
import type { DirectionField, DirectionValues, NumberField } from './profile-form-values';
import { formatGilbertElliott } from './spec-format';

const isDistribution = (value: string): value is Distribution => (DISTRIBUTIONS as readonly string[]).includes(value);

type NumberInput = { field: NumberField; label: string; max: number; step?: string; hint?: string };

const RATE: NumberInput = { field: 'rate_kbit', label: 'Rate (kbit/s)', max: MAX_RATE_KBIT, hint: '0 = unlimited' };
const LIMIT: NumberInput = {
  field: 'limit',
  label: 'Queue limit (packets)',
  max: MAX_LIMIT,
  step: '1',
  hint: 'Packets held before tail drop',
};
const DELAY: NumberInput[] = [
  { field: 'delay_ms', label: 'Delay (ms)', max: MAX_DELAY_MS, hint: 'µ' },
  { field: 'jitter_ms', label: 'Jitter (ms)', max: MAX_DELAY_MS, hint: 'σ (± for uniform)' },
];
const PACKETS: NumberInput[] = [
  { field: 'loss_pct', label: 'Loss (%)', max: 100 },
  { field: 'duplicate_pct', label: 'Duplication (%)', max: 100 },
  { field: 'reorder_pct', label: 'Reordering (%)', max: 100, hint: 'Needs a delay' },
  { field: 'corrupt_pct', label: 'Corruption (%)', max: 100 },
];

type DirectionFieldsetProps = {
  legend: string;
  values: DirectionValues;
  errors: Partial<Record<DirectionField, string[]>>;
  onChange: <F extends keyof DirectionValues>(field: F, value: DirectionValues[F]) => void;
  /** The measured tables to choose from; null while unknown (a text field is shown instead). */
  tables: readonly string[] | null;
  tablesHint?: string;
};

/** One direction's netem settings (docs/network-emulation.md#profiles). */
export const DirectionFieldset = ({ legend, values, errors, onChange, tables, tablesHint }: DirectionFieldsetProps) => {
  const numberField = ({ field, label, max, step = 'any', hint }: NumberInput) => (
    <InputField
      key={field}
      label={label}
      type="number"
      inputMode="decimal"
      min={0}
      max={max}
      step={step}
      value={values[field]}
      onChange={(event: ChangeEvent<HTMLInputElement>) => onChange(field, event.target.value)}
      error={errors[field]}
      hint={hint}
    />
  );

  const tableOptions: SelectOption[] | null =
    tables === null
      ? null
      : [
          { value: '', label: 'Choose a table' },
          ...[...new Set([...tables, ...(values.table ? [values.table] : [])])]
            .sort((a, b) => a.localeCompare(b))
            .map((name) => ({ value: name, label: name })),
        ];

  return (
    <fieldset className="fieldset">
      <legend>{legend}</legend>
      <div className="field-row">
        {numberField(RATE)}
        {numberField(LIMIT)}
      </div>
      <div className="field-row">
        {DELAY.map(numberField)}
        <SelectField
          label="Distribution"
          value={values.distribution}
          onChange={(event) => {
            if (isDistribution(event.target.value)) onChange('distribution', event.target.value);
          }}
          options={DISTRIBUTIONS.map((d) => ({ value: d, label: DISTRIBUTION_LABELS[d] }))}
          error={errors.distribution}
          hint="Of the jitter"
        />
        {values.distribution === 'table' ? (
          tableOptions ? (
            <SelectField
              label="Table"
              className="field-wide"
              value={values.table}
              onChange={(event) => onChange('table', event.target.value)}
              options={tableOptions}
              error={errors.table}
              hint={tablesHint}
            />
          ) : (
            <InputField
              label="Table"
              className="field-wide"
              type="text"
              value={values.table}
              onChange={(event) => onChange('table', event.target.value)}
              error={errors.table}
              hint={tablesHint ?? 'The name of a measured table, e.g. TIM.bad.3G.no_roaming'}
            />
          )
        ) : null}
      </div>
      <div className="field-row">{PACKETS.map(numberField)}</div>
      {values.loss_gemodel ? (
        <div className="field-row">
          <CheckboxField
            label={`Keep this loss model: ${formatGilbertElliott(values.loss_gemodel)}`}
            checked={values.keep_loss_gemodel}
            onChange={(event) => onChange('keep_loss_gemodel', event.target.checked)}
          />
          {errors.loss_gemodel ? <p className="field-error">{errors.loss_gemodel.join(' ')}</p> : null}
        </div>
      ) : null}
    </fieldset>
  );
};
