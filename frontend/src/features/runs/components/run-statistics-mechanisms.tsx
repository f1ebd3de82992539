import { colourOf } from '@/components/charts/colours';
import { formatDecimal } from '@/lib/format';
import type { RunStatistics } from '@/types/api';

import { formatInterval, percent, StatisticsTable, type StatisticsRow } from './run-statistics-table';

const SWATCH = { display: 'inline-block', width: '0.8em', height: '0.8em', borderRadius: '2px' } as const;

/** A mechanism's name after a swatch of its app-wide colour (components/charts/colours.ts). */
const MechanismLabel = ({ mechanism, device }: { mechanism: string; device?: string }) => (
  <>
    <span aria-hidden="true" style={{ ...SWATCH, backgroundColor: colourOf(mechanism) }} />{' '}
    {device ? `${mechanism} · ${device}` : mechanism}
  </>
);

type RunMechanismStatisticsProps = { statistics: RunStatistics };

/**
 * An interleaved run's statistics per mechanism of its rotation (GET /statistics/
 * `mechanisms`): each mechanism's messages over all devices (and per device when the run had
 * several), and each mechanism's round trip against the run's own `none` messages, paired by
 * rotation cycle.
 */
export const RunMechanismStatistics = ({ statistics }: RunMechanismStatisticsProps) => {
  const { mechanisms, confidence } = statistics;
  const several = statistics.devices.length > 1;
  const rows: StatisticsRow[] = mechanisms.flatMap((part) => [
    ...(several
      ? part.devices.map((row) => ({
          key: `${part.mechanism}|${row.device_id ?? row.device_name}`,
          label: <MechanismLabel mechanism={part.mechanism} device={row.device_name} />,
          row,
        }))
      : []),
    {
      key: part.mechanism,
      label: <MechanismLabel mechanism={part.mechanism} />,
      row: part.all_devices,
      total: several,
    },
  ]);
  const paired = mechanisms.filter((part) => part.overhead !== null);
  return (
    <>
      <StatisticsTable
        caption="Per mechanism (interleaved run)"
        chooserKey="run-mechanisms"
        first="Mechanism"
        confidence={confidence}
        rows={rows}
      />
      {paired.length > 0 ? (
        <table className="table">
          <caption className="panel-title">Overhead against none, paired by rotation cycle</caption>
          <thead>
            <tr>
              <th scope="col">Mechanism</th>
              <th scope="col">Pairs</th>
              <th scope="col">Overhead (ms)</th>
              <th scope="col">{percent(confidence)} CI (ms)</th>
            </tr>
          </thead>
          <tbody>
            {paired.map((part) => (
              <tr key={part.mechanism}>
                <th scope="row">
                  <MechanismLabel mechanism={part.mechanism} />
                </th>
                <td className="num">{part.overhead?.pairs}</td>
                <td className="num">{formatDecimal(part.overhead?.overhead_ms, 3)}</td>
                <td className="num">{formatInterval(part.overhead?.ci_low_ms, part.overhead?.ci_high_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <p className="muted">
        Each mechanism over its own messages (message seq secured with the rotation&rsquo;s mechanism seq mod k). The
        overhead is the mean of the differences to the none message of the same rotation cycle where both were
        delivered, with a bootstrap interval over the cycles; drift along the run cancels out of every pair.
      </p>
    </>
  );
};
