import { Link } from 'react-router';

import { ScrollTable } from '@/components/ui/scroll-table';
import { paths } from '@/config/paths';
import { MISSING } from '@/lib/format';
import type { NetworkProfile } from '@/types/api';

import { parseLinkSpec, type DirectionSpec } from '../api/link-spec';

import { DIRECTION_SHORT_LABELS, KIND_LABELS } from './labels';
import { formatDelay, formatJitter, formatLoss, formatRate, shapedDirections, type ShapedDirectionSpec } from './spec-format';

/** One line per shaped direction, in the same order in every column, so rows read across. */
const PerDirection = ({
  directions,
  format,
}: {
  directions: readonly ShapedDirectionSpec[];
  format: (spec: DirectionSpec) => string;
}) => (
  <>
    {directions.map(({ direction, spec }) => (
      <span key={direction} className="cell-line">
        {format(spec)}
      </span>
    ))}
  </>
);

const ProfileRow = ({ profile }: { profile: NetworkProfile }) => {
  const spec = parseLinkSpec(profile.spec);
  const directions = spec ? shapedDirections(spec) : [];
  const figures = (format: (d: DirectionSpec) => string) =>
    directions.length > 0 ? <PerDirection directions={directions} format={format} /> : MISSING;

  return (
    <tr>
      <th scope="row">
        <Link to={paths.networkProfile.getHref(profile.id)}>{profile.name}</Link>
        {profile.builtin ? <span className="badge badge-read-only">read-only</span> : null}
      </th>
      <td>{KIND_LABELS[profile.kind]}</td>
      <td>
        {spec === null
          ? 'see its page'
          : directions.length === 0
            ? 'not shaped'
            : directions.map(({ direction }) => (
                <span key={direction} className="cell-line">
                  {DIRECTION_SHORT_LABELS[direction]}
                </span>
              ))}
      </td>
      <td className="num">{figures(formatDelay)}</td>
      <td>{figures(formatJitter)}</td>
      <td className="num">{figures(formatRate)}</td>
      <td>{figures(formatLoss)}</td>
    </tr>
  );
};

type ProfilesTableProps = { profiles: readonly NetworkProfile[] };

/** The catalogue, one row per profile; a profile shaping each direction on its own has two lines. */
export const ProfilesTable = ({ profiles }: ProfilesTableProps) => (
  <ScrollTable label="Network profiles">
    <table className="table network-profiles-table">
      <caption className="visually-hidden">Network profiles</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Kind</th>
          <th scope="col">Direction</th>
          <th scope="col" className="num">
            Delay
          </th>
          <th scope="col">Jitter</th>
          <th scope="col" className="num">
            Rate
          </th>
          <th scope="col">Loss</th>
        </tr>
      </thead>
      <tbody>
        {profiles.map((profile) => (
          <ProfileRow key={profile.id} profile={profile} />
        ))}
      </tbody>
    </table>
  </ScrollTable>
);
