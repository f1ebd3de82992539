import { CopyButton } from '@/components/ui/copy-button';
import { ScrollTable } from '@/components/ui/scroll-table';
import { MISSING } from '@/lib/format';
import type { LinkDirection } from '@/types/api';

import { DEFAULT_DISTRIBUTION, type DirectionSpec, type LinkSpec } from '../api/link-spec';

import { DIRECTION_LABELS, DISTRIBUTION_LABELS } from './labels';
import {
  formatDelay,
  formatFigure,
  formatLimit,
  formatLoss,
  formatPercent,
  formatRate,
  isShaped,
} from './spec-format';

const ROWS: { label: string; value: (spec: DirectionSpec) => string }[] = [
  { label: 'Rate', value: formatRate },
  { label: 'Delay', value: formatDelay },
  { label: 'Jitter', value: (s) => (s.jitter_ms ? `${formatFigure(s.jitter_ms)} ms` : MISSING) },
  {
    label: 'Distribution',
    value: (s) => (s.jitter_ms ? DISTRIBUTION_LABELS[s.distribution ?? DEFAULT_DISTRIBUTION] : MISSING),
  },
  { label: 'Table', value: (s) => s.table ?? MISSING },
  { label: 'Loss', value: formatLoss },
  { label: 'Duplication', value: (s) => formatPercent(s.duplicate_pct) },
  { label: 'Reordering', value: (s) => formatPercent(s.reorder_pct) },
  { label: 'Corruption', value: (s) => formatPercent(s.corrupt_pct) },
  { label: 'Queue limit', value: formatLimit },
];

/** The columns to show: `both`, or egress and ingress (an unshaped one says so). */
const columnsOf = (spec: LinkSpec): { direction: LinkDirection; spec: DirectionSpec | undefined }[] =>
  'both' in spec
    ? [{ direction: 'both', spec: spec.both }]
    : [
        { direction: 'egress', spec: spec.egress },
        { direction: 'ingress', spec: spec.ingress },
      ];

type LinkSpecPanelProps = { spec: LinkSpec | null; rawSpec: unknown };

/** The full spec, field by field per direction, and the JSON the agent reads. */
export const LinkSpecPanel = ({ spec, rawSpec }: LinkSpecPanelProps) => {
  const json = JSON.stringify(rawSpec, null, 2);
  const columns = spec ? columnsOf(spec) : [];
  const shaped = columns.some((c) => isShaped(c.spec));

  return (
    <section className="panel" aria-labelledby="link-heading">
      <h2 id="link-heading" className="panel-title">
        What the link does
      </h2>
      {spec === null ? (
        <p className="muted">This spec is not one this page can read; its JSON is below.</p>
      ) : !shaped ? (
        <p>Not shaped: packets pass as on the LAN, in both directions.</p>
      ) : (
        <ScrollTable label="Link settings per direction">
          <table className="table">
            <caption className="visually-hidden">Link settings per direction</caption>
            <thead>
              <tr>
                <th scope="col">Setting</th>
                {columns.map((c) => (
                  <th key={c.direction} scope="col">
                    {DIRECTION_LABELS[c.direction]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {ROWS.map((row) => (
                <tr key={row.label}>
                  <th scope="row">{row.label}</th>
                  {columns.map((c) => (
                    <td key={c.direction}>{isShaped(c.spec) ? row.value(c.spec) : row.label === 'Rate' ? 'not shaped' : MISSING}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      <details className="spec-json">
        <summary>Spec (JSON, as the agent reads it)</summary>
        <pre>{json}</pre>
        <CopyButton text={json} label="Copy JSON" accessibleLabel="Copy the spec’s JSON" className="button button-small" />
      </details>
    </section>
  );
};
