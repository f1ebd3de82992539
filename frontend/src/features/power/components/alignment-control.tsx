import { useState, type FormEvent } from 'react';

import { ErrorAlert, errorMessage } from '@/components/ui/error-alert';
import { InputField } from '@/components/ui/form-field';
import { isApiError } from '@/lib/api-client';
import type { PowerTrace } from '@/types/api';

import { updatePowerTraceInputSchema, useUpdatePowerTrace } from '../api/update-power-trace';

import { parseNumber, roundTo } from './energy';
import { describeAlignment } from './labels';

/** Offsets are kept to the millisecond: finer than any meter's clock is set. */
const OFFSET_DECIMALS = 3;
const NUDGES = [-1, -0.1, 0.1, 1] as const;

const nudgeLabel = (delta: number) => `${delta > 0 ? '+' : '−'}${Math.abs(delta)} s`;

/** Where the run starts on the trace's axis now: the saved offset, else where the timestamps put it. */
const currentOffset = (trace: PowerTrace): number =>
  roundTo(trace.offset_s ?? trace.run_window?.start_s ?? 0, OFFSET_DECIMALS);

type AlignmentControlProps = { trace: PowerTrace };

/**
 * The offset of the run on the trace's time axis (where the run window starts, in trace
 * seconds): typed, or nudged by ±0.1 s and ±1 s while watching the shaded run window move.
 * Each change is saved (PATCH offset_s); the server answers with the moved window.
 */
export const AlignmentControl = ({ trace }: AlignmentControlProps) => {
  const [offset, setOffset] = useState(() => String(currentOffset(trace)));
  const [error, setError] = useState<string[] | undefined>();
  const [formError, setFormError] = useState<string | null>(null);
  const update = useUpdatePowerTrace();

  const save = async (value: number | null) => {
    setFormError(null);
    const parsed = updatePowerTraceInputSchema.pick({ offset_s: true }).safeParse({ offset_s: value });
    if (!parsed.success) {
      setError(parsed.error.issues.map((issue) => issue.message));
      return;
    }
    setError(undefined);
    try {
      const saved = await update.mutateAsync({ traceId: trace.id, data: parsed.data });
      setOffset(String(currentOffset(saved)));
    } catch (caught) {
      if (isApiError(caught) && caught.fieldErrors.offset_s) {
        setError(caught.fieldErrors.offset_s);
      } else {
        setFormError(errorMessage(caught));
      }
    }
  };

  const nudge = (delta: number) => {
    const current = parseNumber(offset);
    const next = roundTo((Number.isFinite(current) ? current : currentOffset(trace)) + delta, OFFSET_DECIMALS);
    setOffset(String(next));
    void save(next);
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void save(parseNumber(offset));
  };

  return (
    <div className="alignment">
      <p className="alignment-status" aria-live="polite">
        {describeAlignment(trace)}
      </p>
      {trace.run ? (
        <form className="alignment-form" noValidate onSubmit={onSubmit} aria-label="Alignment">
          <InputField
            label="Offset (s)"
            type="number"
            step="any"
            value={offset}
            onChange={(event) => {
              setOffset(event.target.value);
              setError(undefined);
            }}
            error={error}
            hint="Where the run starts on the trace's time axis. Shift until the shaded window covers the activity."
          />
          <div className="nudges" role="group" aria-label="Nudge the offset">
            {NUDGES.map((delta) => (
              <button
                key={delta}
                type="button"
                className="button button-small"
                onClick={() => nudge(delta)}
                disabled={update.isPending}
              >
                {nudgeLabel(delta)}
              </button>
            ))}
          </div>
          <button type="submit" className="button button-small" disabled={update.isPending}>
            Apply offset
          </button>
          {trace.alignment === 'manual' && trace.absolute_start ? (
            <button
              type="button"
              className="button button-small"
              onClick={() => void save(null)}
              disabled={update.isPending}
            >
              Use the meter&apos;s timestamps
            </button>
          ) : null}
        </form>
      ) : null}
      {formError ? <ErrorAlert message={formError} /> : null}
    </div>
  );
};
