import { InputField, SelectField, type SelectOption } from '@/components/ui/form-field';
import type { Catalogue, RunStatus } from '@/types/api';

import { PROTOCOLS } from '../api/create-experiment';
import type { ExperimentFilters } from '../api/get-experiments';

import { PROTOCOL_LABELS } from './labels';

const RUN_STATUSES = [
  'queued',
  'preparing',
  'running',
  'ingesting',
  'done',
  'partial',
  'failed',
  'cancelled',
] as const satisfies readonly RunStatus[];

/** The filters as the URL keeps them (?q=…&protocol=…), every one optional. */
export const FILTER_KEYS = [
  'q',
  'protocol',
  'mechanism',
  'device',
  'status',
  'created_after',
  'created_before',
] as const satisfies readonly (keyof ExperimentFilters)[];

const isStatus = (value: string): value is NonNullable<ExperimentFilters['status']> =>
  value === 'never' || (RUN_STATUSES as readonly string[]).includes(value);

/** The filters of a URL's query string; unknown values are left out. */
export const filtersFromSearch = (search: URLSearchParams): ExperimentFilters => {
  const filters: ExperimentFilters = {};
  for (const key of FILTER_KEYS) {
    const value = search.get(key);
    if (!value) continue;
    if (key === 'status') {
      if (isStatus(value)) filters.status = value;
    } else {
      filters[key] = value;
    }
  }
  return filters;
};

type ExperimentsFiltersProps = {
  filters: ExperimentFilters;
  onChange: (filters: ExperimentFilters) => void;
  catalogue?: Catalogue;
  devices: readonly { id: string; name: string }[];
};

const ANY: SelectOption = { value: '', label: 'Any' };

/** Search and filters of the experiments list; the page keeps them in its URL. */
export const ExperimentsFilters = ({ filters, onChange, catalogue, devices }: ExperimentsFiltersProps) => {
  const set = (key: keyof ExperimentFilters) => (event: { target: { value: string } }) => {
    const { [key]: _old, ...rest } = filters;
    const { value } = event.target;
    onChange(value ? { ...rest, [key]: value } : rest);
  };
  const active = Object.keys(filters).length > 0;
  return (
    <search className="filters" aria-label="Search and filter experiments">
      <div className="field-row">
        <InputField label="Search" type="search" value={filters.q ?? ''} onChange={set('q')} placeholder="Name or description" />
        <SelectField
          label="Protocol"
          value={filters.protocol ?? ''}
          onChange={set('protocol')}
          options={[ANY, ...PROTOCOLS.map((p) => ({ value: p, label: PROTOCOL_LABELS[p] }))]}
        />
        <SelectField
          label="Mechanism"
          value={filters.mechanism ?? ''}
          onChange={set('mechanism')}
          options={[ANY, ...(catalogue?.mechanisms ?? []).map((m) => ({ value: m.name, label: m.label }))]}
        />
        <SelectField
          label="Device"
          value={filters.device ?? ''}
          onChange={set('device')}
          options={[ANY, ...devices.map((d) => ({ value: d.id, label: d.name }))]}
        />
        <SelectField
          label="Latest run"
          value={filters.status ?? ''}
          onChange={set('status')}
          options={[ANY, { value: 'never', label: 'never run' }, ...RUN_STATUSES.map((s) => ({ value: s, label: s }))]}
        />
        <InputField label="Created from" type="date" value={filters.created_after ?? ''} onChange={set('created_after')} />
        <InputField label="Created until" type="date" value={filters.created_before ?? ''} onChange={set('created_before')} />
      </div>
      {active ? (
        <button type="button" className="button button-small" onClick={() => onChange({})}>
          Clear filters
        </button>
      ) : null}
    </search>
  );
};
