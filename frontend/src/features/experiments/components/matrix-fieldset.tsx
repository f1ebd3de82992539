import { useId, useState, type ChangeEvent } from 'react';

import { InputField, SelectField } from '@/components/ui/form-field';
import type { DesignAxis, DesignExclusion } from '@/types/api';

import { ORDER_SEED_MAX, REPEATS_MAX } from '../api/create-experiment';

type MatrixFieldsetProps = {
  /** The design's axes as they will be sent (canonical), in order. */
  axes: readonly DesignAxis[];
  /** Which of `axes` came linked (from a preset or a clone) and can only be removed. */
  linked: readonly boolean[];
  exclusions: readonly DesignExclusion[];
  repeats: string;
  /** The run order's seed as typed ('' for a fresh one at every start). */
  orderSeed: string;
  onRemoveAxis: (index: number) => void;
  onAddExclusion: (exclusion: DesignExclusion) => void;
  onRemoveExclusion: (exclusion: DesignExclusion) => void;
  onRepeatsChange: (event: ChangeEvent<HTMLInputElement>) => void;
  onOrderSeedChange: (event: ChangeEvent<HTMLInputElement>) => void;
  /** How one axis value (or a combination) reads: "QoS 0 · AES-128-CBC". */
  describe: (cell: Record<string, unknown>) => string;
  errors: { axes?: string[]; exclusions?: string[]; repeats?: string[]; order_seed?: string[] };
};

const ANY = '';

/**
 * The design's matrix: its axes, the combinations excluded from it, and how many times each
 * combination runs. Axes are made with "Vary" under the fields; this section lists them,
 * excludes combinations and shows the server's errors about them.
 */
export const MatrixFieldset = ({
  axes,
  linked,
  exclusions,
  repeats,
  orderSeed,
  onRemoveAxis,
  onAddExclusion,
  onRemoveExclusion,
  onRepeatsChange,
  onOrderSeedChange,
  describe,
  errors,
}: MatrixFieldsetProps) => {
  const id = useId();
  // The value index picked for each axis (ANY: the exclusion does not name that axis).
  const [picks, setPicks] = useState<Record<number, string>>({});
  const axesErrorId = `${id}-axes-error`;
  const exclusionsErrorId = `${id}-exclusions-error`;
  const picked = axes.flatMap((axis, index) => {
    const value = axis.values[Number(picks[index] ?? ANY)];
    return picks[index] && value ? [value] : [];
  });

  const addExclusion = () => {
    if (picked.length === 0) return;
    onAddExclusion(Object.assign({}, ...picked) as DesignExclusion);
    setPicks({});
  };

  return (
    <fieldset
      className="fieldset"
      aria-describedby={[errors.axes ? axesErrorId : null, errors.exclusions ? exclusionsErrorId : null]
        .filter(Boolean)
        .join(' ') || undefined}
    >
      <legend>Matrix</legend>
      <p className="field-hint">
        Check “Vary” under a field to give it several values: the experiment runs every combination of the
        axes’ values.
      </p>
      {axes.length === 0 ? (
        <p className="muted">No axis: starting the experiment makes one run (times the repeats).</p>
      ) : (
        <ol className="axis-list" aria-label="Axes">
          {axes.map((axis, index) => (
            <li key={`${index}:${axis.name}`}>
              <strong>{axis.name}</strong>: {axis.values.map(describe).join(', ')}
              {linked[index] ? (
                <>
                  {' '}
                  <button type="button" className="button button-small" onClick={() => onRemoveAxis(index)}>
                    Remove axis {axis.name}
                  </button>
                </>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      {errors.axes ? (
        <div id={axesErrorId} className="field-error" role="alert">
          <ul>
            {errors.axes.map((message) => (
              <li key={message}>{message}</li>
            ))}
          </ul>
        </div>
      ) : null}

      {axes.length > 0 ? (
        <div className="exclusions">
          <h3 className="fieldset-subtitle">Excluded combinations</h3>
          {exclusions.length === 0 ? (
            <p className="muted">None: every combination runs.</p>
          ) : (
            <ul aria-label="Excluded combinations">
              {exclusions.map((exclusion) => {
                const label = describe(exclusion);
                return (
                  <li key={JSON.stringify(exclusion)}>
                    {label}{' '}
                    <button
                      type="button"
                      className="button button-small"
                      aria-label={`Include ${label} again`}
                      onClick={() => onRemoveExclusion(exclusion)}
                    >
                      Include again
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
          <div className="field-row">
            {axes.map((axis, index) => (
              <SelectField
                key={`${index}:${axis.name}`}
                label={`Exclude where ${axis.name} is`}
                value={picks[index] ?? ANY}
                onChange={(event) => setPicks((prev) => ({ ...prev, [index]: event.target.value }))}
                options={[
                  { value: ANY, label: 'any value' },
                  ...axis.values.map((value, valueIndex) => ({ value: String(valueIndex), label: describe(value) })),
                ]}
              />
            ))}
            <div className="field field-action">
              <button type="button" className="button" onClick={addExclusion} disabled={picked.length === 0}>
                Exclude this combination
              </button>
            </div>
          </div>
          {errors.exclusions ? (
            <p id={exclusionsErrorId} className="field-error">
              {errors.exclusions.join(' ')}
            </p>
          ) : null}
        </div>
      ) : null}

      <div className="field-row">
        <InputField
          label="Repeats"
          type="number"
          inputMode="numeric"
          min={1}
          max={REPEATS_MAX}
          step={1}
          value={repeats}
          onChange={onRepeatsChange}
          hint="How many times each combination runs; repeats are queued round by round."
          error={errors.repeats}
        />
        <InputField
          label="Run order seed (optional)"
          type="number"
          inputMode="numeric"
          min={0}
          max={ORDER_SEED_MAX}
          step={1}
          value={orderSeed}
          onChange={onOrderSeedChange}
          hint="Shuffles the runs within each repeat; the plan shows the order. Empty: a fresh seed at every start, recorded with the runs."
          error={errors.order_seed}
        />
      </div>
    </fieldset>
  );
};
