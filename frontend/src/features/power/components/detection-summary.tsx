
import { ScrollTable } from '@/components/ui/scroll-table';
import type { PowerDetection } from '@/types/api';

import { describeDetection } from './labels';

type DetectionSummaryProps = { detection: PowerDetection };

/** What the server recognised in the file's head, and the head itself as split by its suggestion. */
export const DetectionSummary = ({ detection }: DetectionSummaryProps) => {
  const width = Math.max(detection.header.length, ...detection.preview.map((row) => row.length));
  const columns = Array.from({ length: width }, (_, i) => detection.header[i] ?? `Column ${i + 1}`);
  return (
    <section className="panel" aria-labelledby="detection-heading">
      <h2 id="detection-heading" className="panel-title">
        {describeDetection(detection.label, detection.confidence)}
      </h2>
      {detection.notes.length > 0 ? (
        <ul className="notes" aria-label="Detection notes">
          {detection.notes.map((note, i) => (
            <li key={`${i}:${note}`}>{note}</li>
          ))}
        </ul>
      ) : null}
      {width > 0 ? (
        <ScrollTable label="File preview">
          <table className="table table-preview">
            <caption>File preview</caption>
            <thead>
              <tr>
                {columns.map((name, i) => (
                  // Header cells can repeat or be empty: positions are the only stable keys.
                  <th scope="col" key={i}>
                    {name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {detection.preview.map((row, r) => (
                <tr key={r}>
                  {columns.map((_, c) => (
                    <td key={c}>{row[c] ?? ''}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      ) : (
        <p className="muted">The file&apos;s head shows no columns.</p>
      )}
    </section>
  );
};
