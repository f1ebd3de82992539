import { useMemo, useState, type ChangeEvent, type FormEvent } from 'react';

import { ChartPanel, LineChart, type XySeries } from '@/components/charts';
import { CheckboxList, toggled } from '@/components/ui/checkbox-list';
import { ErrorAlert } from '@/components/ui/error-alert';
import { InputField, RadioOption } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';
import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDecimal } from '@/lib/format';
import type { PowerProjection, PowerTrace } from '@/types/api';

import { usePowerProjection, type ProjectionParams } from '../api/get-power-projection';

import { BaselineFields } from './baseline-fields';
import { formatHours, formatMillijoules, formatWatts } from './energy';
import {
  capacityInWh,
  PROJECTION_DEFAULTS,
  validateProjectionForm,
  type CapacityUnit,
  type ProjectionField,
  type ProjectionFieldErrors,
  type ProjectionFormValues,
} from './projection-values';
import { traceLabel } from './traces-table';

/** One line per series that has hours; those without are explained in the table instead. */
export const projectionSeries = (projection: PowerProjection): XySeries[] =>
  projection.series.flatMap((s) => (s.hours ? [{ name: s.name, x: projection.rates_per_min, y: s.hours }] : []));

const ProjectionTable = ({ projection }: { projection: PowerProjection }) => {
  const maxRate = projection.rates_per_min.at(-1);
  return (
    <ScrollTable label={`Battery life on ${formatDecimal(projection.capacity_wh, 1)} Wh`}>
      <table className="table">
        <caption className="panel-title">Battery life on {formatDecimal(projection.capacity_wh, 1)} Wh</caption>
        <thead>
          <tr>
            <th scope="col">Trace</th>
            <th scope="col">Mean power (W), energy / duration</th>
            <th scope="col">Continuous operation</th>
            <th scope="col">Idle power (W)</th>
            <th scope="col">Energy per message (mJ)</th>
            <th scope="col">{maxRate === undefined ? 'Duty-cycled' : `Duty-cycled, ${maxRate} msg/min`}</th>
          </tr>
        </thead>
        <tbody>
          {projection.series.map((s) => (
            <tr key={`${s.trace}:${s.source}`}>
              <th scope="row">
                {s.name}
                {s.warnings.length > 0 ? (
                  <ul className="notes" aria-label={`Warnings about ${s.name}`}>
                    {s.warnings.map((warning) => (
                      <li key={warning.code}>{warning.message}</li>
                    ))}
                  </ul>
                ) : null}
              </th>
              <td className="num">{formatWatts(s.mean_w)}</td>
              <td className="num">{formatHours(s.continuous_hours)}</td>
              <td className="num">{formatWatts(s.idle_w)}</td>
              <td className="num">{formatMillijoules(s.energy_per_message_j)}</td>
              <td className={s.hours ? 'num' : 'reason'}>
                {s.hours ? formatHours(s.hours.at(-1)) : s.reason || 'No duty-cycled projection.'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
};

const CAPACITY_UNITS: readonly (readonly [CapacityUnit, string])[] = [
  ['wh', 'Wh'],
  ['mah', 'mAh at a voltage'],
];

type ProjectionPanelProps = {
  trace: PowerTrace;
  /** Parsed traces of the workspace, to compare with. */
  traces: readonly PowerTrace[];
};

/**
 * Battery life projected from this trace (and others): continuous operation on the mean
 * power, and duty-cycled life against the message rate, from idle power and energy per message.
 */
export const ProjectionPanel = ({ trace, traces }: ProjectionPanelProps) => {
  const [values, setValues] = useState<ProjectionFormValues>(PROJECTION_DEFAULTS);
  const [errors, setErrors] = useState<ProjectionFieldErrors>({});
  const [params, setParams] = useState<ProjectionParams>(() => {
    const validated = validateProjectionForm(trace.id, PROJECTION_DEFAULTS);
    if (!validated.ok) throw new Error('The projection defaults are invalid.');
    return validated.params;
  });
  const projection = usePowerProjection({ params });
  const series = useMemo(() => (projection.data ? projectionSeries(projection.data) : []), [projection.data]);
  const others = useMemo(() => traces.filter((t) => t.id !== trace.id), [traces, trace.id]);
  const baselines = useMemo(() => others.filter((t) => t.kind === 'baseline'), [others]);

  const update = (changes: Partial<ProjectionFormValues>) => {
    setValues((prev) => ({ ...prev, ...changes }));
    setErrors((prev) => {
      const next = { ...prev };
      for (const field of Object.keys(changes)) delete next[field as ProjectionField];
      return next;
    });
  };
  const set = (field: 'capacity_wh' | 'capacity_mah' | 'capacity_voltage_v' | 'rate_max_per_min') =>
    (event: ChangeEvent<HTMLInputElement>) => update({ [field]: event.target.value });
  const setUnit = (unit: CapacityUnit) => {
    setValues((prev) => ({ ...prev, capacity_unit: unit }));
    setErrors(({ capacity_wh: _wh, capacity_mah: _mah, capacity_voltage_v: _v, ...rest }) => rest);
  };
  const toggle = (id: string, checked: boolean) =>
    setValues((prev) => ({
      ...prev,
      // Keep the list in the order traces are offered, whatever the click order.
      compare: toggled(others.map((t) => t.id), prev.compare, id, checked),
    }));

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const validated = validateProjectionForm(trace.id, values);
    if (!validated.ok) {
      setErrors(validated.errors);
      return;
    }
    setErrors({});
    setParams(validated.params);
  };

  const wh = capacityInWh(values);

  const chart = () => {
    if (projection.isPending) return <Loading label="Projecting…" />;
    if (projection.isError) return <ErrorAlert error={projection.error} />;
    return <LineChart series={series} xLabel="Messages per minute" yLabel="Battery life (h)" />;
  };

  return (
    <section className="panel" aria-labelledby="projection-heading">
      <h2 id="projection-heading" className="panel-title">
        Battery life
      </h2>
      <form className="form form-wide" noValidate onSubmit={onSubmit} aria-label="Battery and traces">
        <div className="radio-row" role="radiogroup" aria-label="Capacity in">
          {CAPACITY_UNITS.map(([unit, label]) => (
            <RadioOption
              key={unit}
              label={label}
              name="capacity_unit"
              checked={values.capacity_unit === unit}
              onChange={() => setUnit(unit)}
            />
          ))}
        </div>
        <div className="field-row">
          {values.capacity_unit === 'wh' ? (
            <InputField
              label="Capacity (Wh)"
              type="number"
              min={0}
              step="any"
              value={values.capacity_wh}
              onChange={set('capacity_wh')}
              error={errors.capacity_wh}
            />
          ) : (
            <>
              <InputField
                label="Capacity (mAh)"
                type="number"
                min={0}
                step="any"
                value={values.capacity_mah}
                onChange={set('capacity_mah')}
                error={errors.capacity_mah}
                hint={wh === null ? undefined : `= ${formatDecimal(wh, 1)} Wh`}
              />
              <InputField
                label="Battery voltage (V)"
                type="number"
                min={0}
                step="any"
                value={values.capacity_voltage_v}
                onChange={set('capacity_voltage_v')}
                error={errors.capacity_voltage_v}
              />
            </>
          )}
          <BaselineFields
            label="Idle power"
            hint="Drawn between messages; needed for the duty-cycled life."
            values={values}
            errors={errors}
            onChange={update}
            baselines={baselines}
            supplyVoltage={trace.supply_voltage_v}
          />
          <InputField
            label="Up to messages per minute"
            type="number"
            min={0}
            step="any"
            value={values.rate_max_per_min}
            onChange={set('rate_max_per_min')}
            error={errors.rate_max_per_min}
          />
        </div>
        {others.length > 0 ? (
          <fieldset className="fieldset">
            <legend>Compare with</legend>
            <CheckboxList
              items={others.map((t) => ({ value: t.id, label: traceLabel(t) }))}
              selected={values.compare}
              onToggle={toggle}
            />
          </fieldset>
        ) : null}
        <div className="actions">
          <button type="submit" className="button button-primary">
            Project battery life
          </button>
        </div>
      </form>

      <ChartPanel label="Battery life against message rate">{chart()}</ChartPanel>
      {projection.data ? <ProjectionTable projection={projection.data} /> : null}
    </section>
  );
};
