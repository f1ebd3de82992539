import { useState } from 'react';

import { ErrorAlert } from '@/components/ui/error-alert';
import { SelectField } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';
import type { PowerTraceKind } from '@/types/api';

import { usePowerTraces } from '../api/get-power-traces';

import { isKind, KIND_LABELS, KINDS } from './labels';
import { TracesTable } from './traces-table';

const ALL = '';

/** The workspace's traces, filtered by kind on the server. */
export const PowerTracesList = () => {
  const [kind, setKind] = useState<PowerTraceKind | typeof ALL>(ALL);
  const traces = usePowerTraces({ filters: kind === ALL ? {} : { kind } });

  return (
    <section className="panel" aria-labelledby="power-traces-heading">
      <h2 id="power-traces-heading" className="panel-title">
        Traces
      </h2>
      <div className="chart-controls">
        <SelectField
          label="Kind"
          value={kind}
          onChange={(event) => {
            const { value } = event.target;
            setKind(isKind(value) ? value : ALL);
          }}
          options={[{ value: ALL, label: 'All kinds' }, ...KINDS.map((k) => ({ value: k, label: KIND_LABELS[k] }))]}
        />
      </div>
      {traces.isPending ? <Loading /> : null}
      {traces.isError ? <ErrorAlert error={traces.error} /> : null}
      {traces.data?.length === 0 ? (
        <p className="empty">
          {kind === ALL ? 'No power traces yet. Upload a meter’s file above.' : 'No traces of this kind.'}
        </p>
      ) : null}
      {traces.data && traces.data.length > 0 ? (
        <TracesTable traces={traces.data} caption="Power traces" />
      ) : null}
    </section>
  );
};
