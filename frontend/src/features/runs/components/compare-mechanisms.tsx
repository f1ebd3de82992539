import type { ReactNode } from 'react';

import { colourOf } from '@/components/charts/colours';
import { ScrollTable } from '@/components/ui/scroll-table';
import { formatDecimal } from '@/lib/format';
import type { RunComparison } from '@/types/api';

import { partKey, type ComparedPart } from './compare-data';
import { formatInterval } from './run-statistics-table';

const SWATCH = { display: 'inline-block', width: '0.8em', height: '0.8em', borderRadius: '2px' } as const;

/** A compared run's (or an interleaved run's mechanism's) name after its mechanism's app-wide colour. */
export const PartName = ({ part, children }: { part: ComparedPart; children: ReactNode }) =>
  part.interleaved && part.mechanism ? (
    <>
      <span aria-hidden="true" style={{ ...SWATCH, backgroundColor: colourOf(part.mechanism) }} /> {children}
    </>
  ) : (
    <>{children}</>
  );

/**
 * Each interleaved run's mechanisms against its own `none` messages, paired by rotation cycle
 * (the run's statistics `mechanisms[].overhead`): what each mechanism costs on that run's
 * network, next to the same mechanism's figure on the other runs.
 */
export const InterleavedOverheads = ({ parts }: { parts: readonly ComparedPart[] }) => {
  const rows = parts.flatMap((part) => {
    const overhead = part.run.statistics.mechanisms.find((m) => m.mechanism === part.mechanism)?.overhead;
    return part.interleaved && overhead ? [{ part, overhead }] : [];
  });
  if (rows.length === 0) return null;
  return (
    <ScrollTable label="Overhead against none within each interleaved run" className="panel">
      <table className="table">
        <caption className="panel-title">Overhead against none within each interleaved run</caption>
        <thead>
          <tr>
            <th scope="col">Run · mechanism</th>
            <th scope="col">Pairs</th>
            <th scope="col">Overhead (ms)</th>
            <th scope="col">95% CI (ms)</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ part, overhead }) => (
            <tr key={partKey(part)}>
              <th scope="row">
                <PartName part={part}>{part.name}</PartName>
              </th>
              <td className="num">{overhead.pairs}</td>
              <td className="num">{formatDecimal(overhead.overhead_ms, 3)}</td>
              <td className="num">{formatInterval(overhead.ci_low_ms, overhead.ci_high_ms)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Within one run: each mechanism&rsquo;s message minus the none message of the same rotation cycle, so drift along
        the run cancels out; the bootstrap interval resamples the cycles.
      </p>
    </ScrollTable>
  );
};

/** Runs that could not be matched by mechanism (GET /api/compare/ `unmatched`), each with why. */
export const UnmatchedNotes = ({ comparison }: { comparison: RunComparison }) =>
  comparison.unmatched.length > 0 ? (
    <ul className="notes" aria-label="Unmatched mechanisms">
      {comparison.unmatched.map((note) => (
        <li key={note.run_ids.join()}>{note.message}</li>
      ))}
    </ul>
  ) : null;
