import { useCallback, useMemo, useState, type ComponentType } from 'react';

import { ChartPanel, GroupedBarChart, type CategoryChartData } from '@/components/charts';
import { CheckboxField, SelectField } from '@/components/ui/form-field';
import { formatDataSize } from '@/lib/format';
import type { BenchSummaryRow } from '@/types/api';

import { dataSizesOf, type LabelFor } from './bench-rows';
import { BenchTable, type BenchColumn } from './bench-table';

/** What the panel below a bench-like kind's bar chart gets: the rows and the chosen size. */
export type BenchPanelProps = {
  sorted: readonly BenchSummaryRow[];
  /** The data size chosen for the bar chart; undefined when no rows were stored. */
  size: number | undefined;
  labelFor: LabelFor;
};

/**
 * What a bench-like kind (one `bench_summary` row per device, mechanism, operation and data
 * size) draws: a bar chart of mechanisms at one data size, a panel of its own, its table.
 */
export type BenchResultsSpec = {
  /** The rows in the kind's order, mechanisms in `mechanismOrder` (the catalogue's). */
  sortRows: (rows: readonly BenchSummaryRow[], mechanismOrder: readonly string[]) => BenchSummaryRow[];
  /** The data size select's label. */
  sizeLabel: string;
  bars: {
    label: string;
    valueLabel: string;
    /** Whether the value axis starts logarithmic. */
    logScale: boolean;
    data: (sorted: readonly BenchSummaryRow[], size: number | undefined, labelFor: LabelFor) => CategoryChartData;
  };
  /** The panel between the bar chart and the table. */
  Panel: ComponentType<BenchPanelProps>;
  table: { caption: string; columns: readonly BenchColumn[] };
};

type BenchKindResultsProps = {
  spec: BenchResultsSpec;
  rows: readonly BenchSummaryRow[];
  /** Mechanism name → label, in catalogue order (which also orders the results). */
  mechanismLabels: ReadonlyMap<string, string>;
};

/** A completed bench-like run: its bar chart at a chosen data size, its own panel, then every statistic. */
export const BenchKindResults = ({ spec, rows, mechanismLabels }: BenchKindResultsProps) => {
  const { sortRows, bars, Panel } = spec;
  const labelFor = useCallback((name: string) => mechanismLabels.get(name) ?? name, [mechanismLabels]);
  const sorted = useMemo(() => sortRows(rows, [...mechanismLabels.keys()]), [sortRows, rows, mechanismLabels]);
  const sizes = useMemo(() => dataSizesOf(sorted), [sorted]);
  // One data size at a time: bars for every size side by side would be unreadable.
  const [chosenSize, setChosenSize] = useState<number | null>(null);
  const size = chosenSize !== null && sizes.includes(chosenSize) ? chosenSize : sizes[0];
  const [logScale, setLogScale] = useState(bars.logScale);
  const data = useMemo(() => bars.data(sorted, size, labelFor), [bars, sorted, size, labelFor]);

  return (
    <>
      <ChartPanel
        label={bars.label}
        controls={
          <>
            {sizes.length > 0 ? (
              <SelectField
                label={spec.sizeLabel}
                value={String(size)}
                onChange={(event) => setChosenSize(Number(event.target.value))}
                options={sizes.map((bytes) => ({ value: String(bytes), label: formatDataSize(bytes) }))}
              />
            ) : null}
            <CheckboxField label="Log scale" checked={logScale} onChange={(event) => setLogScale(event.target.checked)} />
          </>
        }
      >
        <GroupedBarChart data={data} categoryLabel="Mechanism" valueLabel={bars.valueLabel} logScale={logScale} />
      </ChartPanel>
      <Panel sorted={sorted} size={size} labelFor={labelFor} />
      <div className="panel">
        <BenchTable caption={spec.table.caption} columns={spec.table.columns} rows={sorted} labelFor={labelFor} />
      </div>
    </>
  );
};
