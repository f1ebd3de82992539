import type { NetworkProfile } from '@/types/api';

/** Where the measured tables come from (fixtures/network-profiles/README.md and LICENSE). */
const TABLES_PROJECT = 'https://github.com/marty90/mobile-latency-emulator';
const SRUP_PAPER = 'https://doi.org/10.3390/iot2040028';

type SourcePanelProps = {
  profile: Pick<NetworkProfile, 'kind' | 'citation'>;
  /** The spec names a measured table: its data is GPL-3.0, whoever's profile it is. */
  usesTables: boolean;
};

/** The profile's citation, and the licence of the data it is built on. */
export const SourcePanel = ({ profile, usesTables }: SourcePanelProps) => (
  <section className="panel" aria-labelledby="source-heading">
    <h2 id="source-heading" className="panel-title">
      Source
    </h2>
    {profile.citation ? <p className="citation">{profile.citation}</p> : <p className="muted">No source given.</p>}
    {usesTables ? (
      <p className="licence-note">
        <strong>Licence: </strong>
        the delay table is GPL-3.0 data of{' '}
        <a href={TABLES_PROJECT} target="_blank" rel="noreferrer">
          mobile-latency-emulator
        </a>{' '}
        (Martino Trevisan), from the measurements of Khatouni, Trevisan, Giordano et al., “Data-Driven Emulation of
        Mobile Access Networks”, CNSM 2019. Its values are round-trip latencies, applied to one direction. Keep
        this attribution with anything built from it.
      </p>
    ) : null}
    {profile.kind === 'builtin_condition' ? (
      <p className="licence-note">
        <strong>Licence: </strong>
        the condition’s figures are from Poulter &amp; Cox, IoT 2021 (CC BY 4.0),{' '}
        <a href={SRUP_PAPER} target="_blank" rel="noreferrer">
          doi:10.3390/iot2040028
        </a>
        .
      </p>
    ) : null}
  </section>
);
