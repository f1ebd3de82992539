import { useMemo, useState } from 'react';

import { ChartPanel, StackedBarChart } from '@/components/charts';
import { ErrorAlert } from '@/components/ui/error-alert';
import { SelectField } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';
import { ScrollTable } from '@/components/ui/scroll-table';
import { isApiError } from '@/lib/api-client';
import type { SizeBreakdown } from '@/types/api';

import { NO_DELIVERED_MESSAGES_CODE, useRunSizes, useRunSizesList } from '../api/get-run-sizes';

import {
  carrierOf,
  describeSizes,
  describeWireBytes,
  sizeChartData,
  sizeTableRows,
  type SizeBar,
} from './size-breakdown-data';

const BYTES_LABEL = 'Bytes per message';
const MODEL_WARNING_TITLE = 'The size model does not match the measured bytes.';

/** A run that delivered nothing has no sizes: say so quietly; anything else is an error. */
const SizesError = ({ error }: { error: Error }) =>
  isApiError(error) && error.code === NO_DELIVERED_MESSAGES_CODE ? (
    <p className="muted">{error.message}</p>
  ) : (
    <ErrorAlert error={error} title="The message sizes could not be loaded." />
  );

const Assumptions = ({ assumptions }: { assumptions: readonly string[] }) => (
  <details>
    <summary>What is measured and what is assumed</summary>
    <ul>
      {assumptions.map((assumption) => (
        <li key={assumption}>{assumption}</li>
      ))}
    </ul>
  </details>
);

const SizeTable = ({ sizes }: { sizes: SizeBreakdown }) => (
  <ScrollTable label="Bytes of one message">
    <table className="table">
      <caption className="panel-title">Bytes of one message</caption>
      <thead>
        <tr>
          <th scope="col">Part</th>
          <th scope="col">Bytes</th>
          <th scope="col">Basis</th>
        </tr>
      </thead>
      <tbody>
        {sizeTableRows(sizes).map((row) => (
          <tr key={row.key}>
            <th scope="row">{row.name}</th>
            <td className="num">{row.bytes}</td>
            <td>{row.basis}</td>
          </tr>
        ))}
        <tr className="row-total">
          <th scope="row">Frame{sizes.segments > 1 ? `s (${sizes.segments} segments)` : ''}</th>
          <td className="num">{sizes.frame_bytes}</td>
          <td />
        </tr>
      </tbody>
    </table>
  </ScrollTable>
);

const PROTOCOL_NAMES: Readonly<Record<string, string>> = { mqtt: 'Plain MQTT', srup: 'SRUP' };

/** The SRUP paper's comparison (80 B plain MQTT against 430 B SRUP): the other protocol's frame for
 * this run's payload, from the size model, beside this run's measured one. */
const ReferenceFrames = ({ sizes }: { sizes: SizeBreakdown }) =>
  sizes.reference_frames.length ? (
    <>
      <ScrollTable label="The same payload in the SRUP paper’s comparison">
        <table className="table">
          <caption className="panel-title">Beside it: the same payload in the SRUP paper’s comparison</caption>
          <thead>
            <tr>
              <th scope="col">Message</th>
              <th scope="col">TCP payload (bytes)</th>
              <th scope="col">Frame (bytes)</th>
              <th scope="col">In the paper (bytes)</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">This run (measured)</th>
              <td className="num">{sizes.wire_bytes_median}</td>
              <td className="num">{sizes.frame_bytes}</td>
              <td />
            </tr>
            {sizes.reference_frames.map((frame) => (
              <tr key={frame.protocol}>
                <th scope="row" title={frame.note}>
                  {PROTOCOL_NAMES[frame.protocol] ?? frame.protocol} (model): {frame.stack}
                </th>
                <td className="num">{frame.socket_bytes}</td>
                <td className="num">{frame.frame_bytes}</td>
                <td className="num">{frame.paper_frame_bytes ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
      {sizes.reference_frames.map((frame) => (
        <p key={frame.protocol} className="muted">
          {frame.note}
        </p>
      ))}
    </>
  ) : null;

type RunSizeBreakdownProps = {
  runId: string;
  /** Mechanism name → label; names are shown for missing ones. */
  mechanismLabels: ReadonlyMap<string, string>;
};

/** The model's warnings: the run's, or each mechanism's of an interleaved run. */
const ModelWarnings = ({ bars }: { bars: readonly SizeBar[] }) =>
  bars
    .filter((bar) => bar.sizes.warning)
    .map((bar) => (
      <ErrorAlert
        key={bar.label}
        title={bars.length > 1 ? `${bar.label}: ${MODEL_WARNING_TITLE}` : MODEL_WARNING_TITLE}
        message={bar.sizes.warning ?? ''}
      />
    ));

/**
 * One message of a completed messaging run, byte by byte (GET /sizes/): a stacked bar and its
 * table. An interleaved run gets one bar per mechanism of its rotation (each with the 1-byte
 * index, judged against that mechanism's own messages) and the table of the chosen one.
 */
export const RunSizeBreakdown = ({ runId, mechanismLabels }: RunSizeBreakdownProps) => {
  const sizes = useRunSizes({ runId });
  const data = sizes.data;
  const [chosen, setChosen] = useState<string | null>(null);
  const bars = useMemo<SizeBar[]>(() => {
    if (!data) return [];
    const labelFor = (name: string) => mechanismLabels.get(name) ?? name;
    if (data.mechanisms.length > 0)
      return data.mechanisms.map((part) => ({ label: labelFor(part.mechanism ?? ''), sizes: part }));
    return [{ label: describeSizes(data, labelFor), sizes: data }];
  }, [data, mechanismLabels]);
  const chart = useMemo(() => (bars.length > 0 ? sizeChartData(bars) : null), [bars]);
  const interleaved = (data?.mechanisms.length ?? 0) > 0;
  const shown = data?.mechanisms.find((part) => part.mechanism === chosen) ?? data?.mechanisms[0] ?? data;

  return (
    <ChartPanel
      label="Message size breakdown"
      controls={
        interleaved && data ? (
          <SelectField
            label="Mechanism"
            value={shown?.mechanism ?? ''}
            onChange={(event) => setChosen(event.target.value)}
            options={data.mechanisms.map((part, i) => ({ value: part.mechanism ?? '', label: bars[i]?.label ?? '' }))}
          />
        ) : null
      }
    >
      {sizes.isPending ? <Loading label="Loading message sizes…" /> : null}
      {sizes.error ? <SizesError error={sizes.error} /> : null}
      {shown && chart ? (
        <>
          <ModelWarnings bars={bars} />
          <StackedBarChart data={chart} categoryLabel={interleaved ? 'Mechanism' : 'Run'} valueLabel={BYTES_LABEL} />
          <p className="muted">
            {interleaved ? `${shown.mechanism ?? ''}: ` : ''}Measured at the agent’s socket: {describeWireBytes(shown)}{' '}
            of {carrierOf(shown)} payload per message; the parts below {carrierOf(shown)} are assumed.
            {interleaved
              ? ' Interleaved run: each mechanism’s messages carry a 1-byte clear index before the secured payload, and each bar is checked against that mechanism’s own messages.'
              : ''}
          </p>
          <SizeTable sizes={shown} />
          <ReferenceFrames sizes={shown} />
          <Assumptions assumptions={shown.assumptions} />
        </>
      ) : null}
    </ChartPanel>
  );
};

type SizeComparisonProps = {
  runIds: readonly string[];
  /** Run id → the label its bar gets (as in the rest of the compare page). */
  labels: ReadonlyMap<string, string>;
};

/** One stacked bar per compared run: where each run's message bytes go. */
export const SizeComparison = ({ runIds, labels }: SizeComparisonProps) => {
  const sizes = useRunSizesList({ runIds });
  const bars = useMemo<SizeBar[]>(
    () => sizes.data.map((s) => ({ label: labels.get(s.run_id) ?? s.run_id, sizes: s })),
    [sizes.data, labels],
  );
  const chart = useMemo(() => sizeChartData(bars), [bars]);
  const disagreements = bars.filter((bar) => bar.sizes.warning);

  return (
    <ChartPanel label="Message size breakdown by run">
      {sizes.error ? <SizesError error={sizes.error} /> : null}
      {sizes.isPending ? <Loading label="Loading message sizes…" /> : null}
      {!sizes.isPending && bars.length > 0 ? (
        <>
          {disagreements.map((bar) => (
            <ErrorAlert
              key={bar.sizes.run_id}
              title={`${bar.label}: ${MODEL_WARNING_TITLE}`}
              message={bar.sizes.warning ?? ''}
            />
          ))}
          <StackedBarChart data={chart} categoryLabel="Run" valueLabel={BYTES_LABEL} />
          <p className="muted">
            Wire bytes measured at each agent’s socket (median per run); Ethernet, IPv4 and TCP or UDP headers
            assumed per segment or datagram.
          </p>
        </>
      ) : null}
    </ChartPanel>
  );
};
