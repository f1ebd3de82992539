import { useMemo, useState, type FormEvent } from 'react';

import { ErrorAlert } from '@/components/ui/error-alert';
import { InputField, SelectField } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';
import type { PowerTrace } from '@/types/api';

import { DEFAULT_FIGURES_PARAMS, usePowerFigures, type FiguresParams } from '../api/get-power-figures';

import { BaselineFields } from './baseline-fields';
import { FiguresTable } from './figures-table';
import {
  defaultWindow,
  initialFiguresValues,
  secondsText,
  validateFiguresForm,
  type FiguresFieldErrors,
  type FiguresFormValues,
} from './figures-values';
import { PowerWarnings } from './power-warnings';
import { traceLabel } from './traces-table';

type FiguresPanelProps = {
  trace: PowerTrace;
  /** Parsed traces of the workspace: baselines and references are chosen among them. */
  traces: readonly PowerTrace[];
};

/** Energy figures of a window, optionally net of a baseline and compared with a reference. */
export const FiguresPanel = ({ trace, traces }: FiguresPanelProps) => {
  const [values, setValues] = useState<FiguresFormValues>(() => initialFiguresValues(trace));
  const [errors, setErrors] = useState<FiguresFieldErrors>({});
  const [params, setParams] = useState<FiguresParams>(() => {
    const validated = validateFiguresForm(initialFiguresValues(trace));
    // No usable default window (a trace without a duration): let the server choose.
    return validated.ok ? validated.params : DEFAULT_FIGURES_PARAMS;
  });
  const figures = usePowerFigures({ traceId: trace.id, params });

  const others = useMemo(() => traces.filter((t) => t.id !== trace.id), [traces, trace.id]);
  const baselines = useMemo(() => others.filter((t) => t.kind === 'baseline'), [others]);

  const update = (changes: Partial<FiguresFormValues>) => {
    setValues((prev) => ({ ...prev, ...changes }));
    setErrors((prev) => {
      const next = { ...prev };
      for (const field of Object.keys(changes)) delete next[field as keyof FiguresFormValues];
      return next;
    });
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const validated = validateFiguresForm(values);
    if (!validated.ok) {
      setErrors(validated.errors);
      return;
    }
    setErrors({});
    setParams(validated.params);
  };

  const whole = defaultWindow({ run_window: null, duration_s: trace.duration_s });
  const runWindow = trace.run_window;

  return (
    <section className="panel" aria-labelledby="figures-heading">
      <h2 id="figures-heading" className="panel-title">
        Figures
      </h2>
      <form className="form form-wide" noValidate onSubmit={onSubmit} aria-label="Figures window and baseline">
        <div className="field-row">
          <InputField
            label="Window start (s)"
            type="number"
            min={0}
            step="any"
            value={values.start}
            onChange={(event) => update({ start: event.target.value })}
            error={errors.start}
          />
          <InputField
            label="Window end (s)"
            type="number"
            min={0}
            step="any"
            value={values.end}
            onChange={(event) => update({ end: event.target.value })}
            error={errors.end}
          />
          <div className="field field-buttons">
            <button
              type="button"
              className="button button-small"
              disabled={!runWindow}
              onClick={() =>
                runWindow && update({ start: secondsText(runWindow.start_s), end: secondsText(runWindow.end_s) })
              }
            >
              Use run window
            </button>
            <button
              type="button"
              className="button button-small"
              disabled={!whole}
              onClick={() => whole && update({ start: secondsText(whole.start_s), end: secondsText(whole.end_s) })}
            >
              Whole trace
            </button>
          </div>
        </div>
        <div className="field-row">
          <BaselineFields
            label="Baseline"
            hint="Subtracted to give net power and energy: what the workload adds to the idle device."
            values={values}
            errors={errors}
            onChange={update}
            baselines={baselines}
            supplyVoltage={figures.data?.supply_voltage_v ?? trace.supply_voltage_v}
          />
          <SelectField
            label="Reference trace"
            value={values.reference_trace}
            onChange={(event) => update({ reference_trace: event.target.value })}
            options={[{ value: '', label: 'None' }, ...others.map((t) => ({ value: t.id, label: traceLabel(t) }))]}
            hint="e.g. the same workload without security, for the overhead."
          />
        </div>
        <div className="actions">
          <button type="submit" className="button button-primary">
            Compute figures
          </button>
        </div>
      </form>

      {figures.isPending ? <Loading label="Computing figures…" /> : null}
      {figures.isError ? <ErrorAlert error={figures.error} /> : null}
      {figures.data ? <PowerWarnings warnings={figures.data.warnings} label="Warnings about these figures" /> : null}
      {figures.data ? <FiguresTable figures={figures.data} /> : null}
      {figures.isFetching && !figures.isPending ? <p className="muted">Updating…</p> : null}
    </section>
  );
};
