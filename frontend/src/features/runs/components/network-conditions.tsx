import { Link } from 'react-router';

import { ScrollTable } from '@/components/ui/scroll-table';
import { paths } from '@/config/paths';
import { formatDecimal, MISSING } from '@/lib/format';
import type { Run, RunDevice } from '@/types/api';

import { isRunFinished } from '../api/get-run';
import { useResultsSource } from '../api/results-api';

import {
  parseNetworkProof,
  runNetworkProfile,
  type ForwarderCounters,
  type ForwarderDirection,
  type NetemCounters,
  type NetworkProof,
} from './network-proof';

// Two decimals, as the agent words its verification (`expected 120.00 ± 12.00 ms`).
const ms = (value: number | null) => formatDecimal(value, 2);
const us = (value: number | null) => formatDecimal(value, 1);
const whole = (value: number | null) => (value === null ? MISSING : value.toLocaleString('en'));

const DIRECTION_LABELS: Record<ForwarderDirection, string> = {
  egress: 'Egress (device → platform)',
  ingress: 'Ingress (platform → device)',
};

export const NO_PROOF_MESSAGE = 'No proof of enforcement was received from this device.';
const PROOF_PENDING_MESSAGE = 'Its proof of enforcement arrives when the device’s run ends.';

const VerificationFigures = ({ verification }: { verification: NonNullable<NetworkProof['verification']> }) => (
  <>
    <dt>Verification</dt>
    <dd>
      {verification.ok === null ? MISSING : verification.ok ? 'Passed' : 'Failed'}
      {verification.ok === false && verification.reason ? `: ${verification.reason}` : null}
    </dd>
    <dt>Expected median round trip</dt>
    <dd>
      {ms(verification.expectedMedianMs)} ± {ms(verification.toleranceMs)} ms
    </dd>
    <dt>Measured round trip</dt>
    <dd>
      median {ms(verification.measuredMedianMs)} ms, p95 {ms(verification.measuredP95Ms)} ms
    </dd>
    <dt>Probes back</dt>
    <dd>
      {whole(verification.received)} of {whole(verification.sent)}
    </dd>
  </>
);

/** One row per direction of a link's counters: the forwarder's, or netem's qdiscs'. */
const CountersTable = ({
  caption,
  columns,
  rows,
}: {
  caption: string;
  columns: readonly string[];
  rows: { direction: ForwarderDirection; cells: (number | null)[] }[];
}) => (
  <ScrollTable label={`${caption}`}>
    <table className="table">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Direction</th>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.direction}>
            <th scope="row">{DIRECTION_LABELS[row.direction]}</th>
            {row.cells.map((cell, index) => (
              <td className="num" key={columns[index]}>
                {whole(cell)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  </ScrollTable>
);

const forwarderRows = (rows: ForwarderCounters[]) =>
  rows.map((r) => ({ direction: r.direction, cells: [r.forwarded, r.droppedLoss, r.droppedQueue] }));

const netemRows = (rows: NetemCounters[]) =>
  rows.map((r) => ({ direction: r.direction, cells: [r.packets, r.bytes, r.drops] }));

const DeviceProof = ({ device, proof }: { device: RunDevice; proof: NetworkProof }) => (
  <>
    <dl className="params">
      <dt>Enforced by</dt>
      <dd>{proof.backend ?? MISSING}</dd>
      {proof.verification ? <VerificationFigures verification={proof.verification} /> : null}
      {proof.relay ? (
        <>
          <dt>Relay</dt>
          <dd>
            adds about {us(proof.relay.addedMedianUs)} µs per round trip (median hop up {us(proof.relay.upP50Us)}{' '}
            µs, down {us(proof.relay.downP50Us)} µs)
          </dd>
        </>
      ) : null}
    </dl>
    {proof.forwarder.length > 0 ? (
      <CountersTable
        caption={`Forwarder of ${device.name} (packets)`}
        columns={['Forwarded', 'Dropped by loss', 'Dropped by queue']}
        rows={forwarderRows(proof.forwarder)}
      />
    ) : null}
    {proof.netem.length > 0 ? (
      <CountersTable
        caption={`netem qdiscs of ${device.name} (read back before the run, statistics after it)`}
        columns={['Packets sent', 'Bytes sent', 'Dropped']}
        rows={netemRows(proof.netem)}
      />
    ) : null}
  </>
);

/**
 * The network profile a messaging run was measured under and, per device, the agent's proof
 * that its link enforced it (docs/network-emulation.md). Nothing for a run without a profile.
 * Why a run failed is shown by the run page itself.
 */
export const NetworkConditions = ({ run }: { run: Run }) => {
  // On a shared page the profile is plain text: its page is in the workspace.
  const { shared } = useResultsSource();
  const profile = runNetworkProfile(run.spec);
  if (!profile) return null;
  const finished = isRunFinished(run.status);

  return (
    <section className="panel" aria-labelledby="network-conditions-heading">
      <h2 id="network-conditions-heading" className="panel-title">
        Network conditions
      </h2>
      <p>
        Profile:{' '}
        {profile.id && !shared ? (
          <Link to={paths.networkProfile.getHref(profile.id)}>{profile.name}</Link>
        ) : (
          profile.name
        )}
      </p>
      {run.devices.map((device) => {
        const proof = parseNetworkProof(device.network);
        const headingId = `network-proof-${device.device_id}`;
        return (
          <section key={device.device_id} aria-labelledby={headingId}>
            <h3 id={headingId}>{device.name}</h3>
            {proof ? (
              <DeviceProof device={device} proof={proof} />
            ) : (
              <p className="muted">{finished ? NO_PROOF_MESSAGE : PROOF_PENDING_MESSAGE}</p>
            )}
          </section>
        );
      })}
    </section>
  );
};
