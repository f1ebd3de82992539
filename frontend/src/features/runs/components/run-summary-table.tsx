
import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDecimal } from '@/lib/format';
import type { RunSummaryRow } from '@/types/api';

type RunSummaryTableProps = { rows: RunSummaryRow[] };

// Each securing time raw (inside the mechanism's calls), the harness floor (the Null
// mechanism on the same payload size, timed the same way beside every message) and net of it,
// as means (net = raw − floor; the API computes it) and as medians (the net median is the
// median of each message's own net time): a few cold calls after pauses move a mean, hardly
// a median.
const TIME_COLUMNS = [
  ['secure_mean_us', 'Secure mean (µs)'],
  ['secure_median_us', 'Secure median (µs)'],
  ['floor_secure_mean_us', 'Secure floor (µs)'],
  ['net_secure_mean_us', 'Secure net mean (µs)'],
  ['net_secure_median_us', 'Secure net median (µs)'],
  ['unsecure_mean_us', 'Unsecure mean (µs)'],
  ['unsecure_median_us', 'Unsecure median (µs)'],
  ['floor_unsecure_mean_us', 'Unsecure floor (µs)'],
  ['net_unsecure_mean_us', 'Unsecure net mean (µs)'],
  ['net_unsecure_median_us', 'Unsecure net median (µs)'],
] as const satisfies readonly (readonly [keyof RunSummaryRow, string])[];

/**
 * The time spent securing a payload before sending and unsecuring it after receiving, per
 * device (runs with payload security): raw, the harness floor and net of the floor, means and
 * medians.
 * From the run's stored summary: GET /statistics/ does not carry these times (yet); the
 * round-trip statistics are in RunStatisticsTable.
 */
export const RunSummaryTable = ({ rows }: RunSummaryTableProps) => {
  // An interleaved run's rows are per mechanism (the API leaves out its mixed rows).
  const interleaved = rows.some((row) => row.mechanism);
  return (
  <ScrollTable label="Securing times" chooserKey="securing-times">
    <table className="table">
      <caption className="panel-title">Securing times</caption>
      <thead>
        <tr>
          {interleaved ? <th scope="col">Mechanism</th> : null}
          <th scope="col">Device</th>
          <th scope="col">n</th>
          {TIME_COLUMNS.map(([key, label]) => (
            <th scope="col" key={key}>
              {label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr
            key={`${row.mechanism ?? ''}|${row.device_id ?? 'all'}`}
            className={row.device_id === null ? 'row-total' : undefined}
          >
            {interleaved ? <td>{row.mechanism}</td> : null}
            <th scope="row">{row.device_name}</th>
            <td className="num">{row.n}</td>
            {TIME_COLUMNS.map(([key]) => (
              <td className="num" key={key}>
                {formatDecimal(row[key], 3)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
    <p className="muted">
      Floor: the Null mechanism&rsquo;s cost on the same path (same payload size, same timing, no cryptography),
      measured on every message of this run; net = raw − floor. Medians: a few slow (cold) calls, e.g. after
      pauses between messages, raise a mean but hardly a median.
    </p>
  </ScrollTable>
  );
};
