import { Fragment, type ReactNode } from 'react';
import { Link } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { paths } from '@/config/paths';
import { formatDataSize, formatDateTime } from '@/lib/format';
import type { Catalogue, Experiment, Run, RunBrief } from '@/types/api';

import { designFileUrl } from '../api/design-file';
import { useStartRun } from '../api/start-run';

import { labelOf } from './catalogue';
import { hasSeveralRuns, parseAxes, parseExclusions } from './design-axes';
import { ExperimentRunsTable } from './experiment-runs-table';
import {
  COAP_METHOD_LABELS,
  COAP_TYPE_LABELS,
  CRYPTO_LIBRARY_LABELS,
  describeCell,
  INTERVAL_DISTRIBUTION_LABELS,
  MEASUREMENT_LABELS,
  MQTT_VERSION_LABELS,
  overUdp,
  PROTOCOL_LABELS,
  qosLabel,
  SRUP_SIGNATURE_LABELS,
  TOPIC_ID_TYPE_LABELS,
  TRANSPORT_LABELS,
  type ValueNames,
} from './labels';
import { NO_NETWORK_PROFILE_LABEL } from './network-profile-options';

const MessagingParameters = ({ experiment, catalogue }: { experiment: Experiment; catalogue?: Catalogue }) => (
  <>
    <dt>Protocol</dt>
    <dd>{PROTOCOL_LABELS[experiment.protocol]}</dd>
    {experiment.protocol === 'coap' ? (
      <>
        <dt>CoAP message type</dt>
        <dd>{COAP_TYPE_LABELS[experiment.coap_type]}</dd>
        <dt>CoAP method</dt>
        <dd>{COAP_METHOD_LABELS[experiment.coap_method]}</dd>
      </>
    ) : (
      <>
        {experiment.protocol === 'mqttsn' ? (
          <>
            <dt>Topic id type</dt>
            <dd>{TOPIC_ID_TYPE_LABELS[experiment.topic_id_type]}</dd>
          </>
        ) : (
          <>
            <dt>MQTT version</dt>
            <dd>{MQTT_VERSION_LABELS[experiment.mqtt_version]}</dd>
          </>
        )}
        <dt>QoS</dt>
        <dd>{qosLabel(experiment.qos)}</dd>
      </>
    )}
    <dt>Transport</dt>
    <dd>{overUdp(experiment.protocol) ? 'UDP' : TRANSPORT_LABELS[experiment.transport]}</dd>
    {experiment.protocol === 'srup' ? (
      <>
        <dt>SRUP signature</dt>
        <dd>{SRUP_SIGNATURE_LABELS[experiment.srup_signature]}</dd>
      </>
    ) : (
      <>
        <dt>Payload security</dt>
        <dd>{labelOf(catalogue?.mechanisms, experiment.security)}</dd>
      </>
    )}
    {experiment.interleave_mechanisms.length > 0 ? (
      <>
        <dt>Interleaved mechanisms</dt>
        <dd>{experiment.interleave_mechanisms.map((m) => labelOf(catalogue?.mechanisms, m)).join(' / ')}</dd>
      </>
    ) : null}
    <dt>Payload size (bytes)</dt>
    <dd>{experiment.payload_size}</dd>
    <dt>Messages per device</dt>
    <dd>{experiment.message_count}</dd>
    <dt>Interval between messages (ms)</dt>
    <dd>{experiment.interval_ms}</dd>
    <dt>Interval distribution</dt>
    <dd>{INTERVAL_DISTRIBUTION_LABELS[experiment.interval_distribution]}</dd>
    <dt>Measurement</dt>
    <dd>{MEASUREMENT_LABELS[experiment.measurement]}</dd>
    <dt>Network profile</dt>
    <dd>
      {experiment.network_profile ? (
        <Link to={paths.networkProfile.getHref(experiment.network_profile)}>
          {experiment.network_profile_name ?? experiment.network_profile}
        </Link>
      ) : (
        NO_NETWORK_PROFILE_LABEL
      )}
    </dd>
    <AddressingParameters experiment={experiment} />
  </>
);

/** The design's addressing and targets (docs/experiment-design.md "Topics and targets"), only those it sets. */
const AddressingParameters = ({ experiment }: { experiment: Experiment }) => {
  const rows: [string, string | number | null][] = [
    ['Topic', experiment.topic],
    ['Predefined topic id', experiment.mqttsn_topic_id],
    ['External broker', experiment.broker_url],
    ['CoAP URL', experiment.coap_url],
    ['MQTT-SN gateway', experiment.mqttsn_gateway],
  ];
  return rows
    .filter(([, value]) => value !== '' && value !== null)
    .map(([label, value]) => (
      <Fragment key={label}>
        <dt>{label}</dt>
        <dd>
          <code>{value}</code>
        </dd>
      </Fragment>
    ));
};

const CipherBenchParameters = ({ experiment, catalogue }: { experiment: Experiment; catalogue?: Catalogue }) => (
  <>
    <dt>Mechanisms</dt>
    <dd>{experiment.mechanisms.map((name) => labelOf(catalogue?.mechanisms, name)).join(', ')}</dd>
    <dt>Data sizes</dt>
    <dd>{experiment.data_sizes.map(formatDataSize).join(', ')}</dd>
    <dt>Repetitions</dt>
    <dd>{experiment.repetitions}</dd>
    <dt>Crypto library</dt>
    <dd>{CRYPTO_LIBRARY_LABELS[experiment.crypto_library]}</dd>
  </>
);

const ThroughputParameters = ({ experiment, catalogue }: { experiment: Experiment; catalogue?: Catalogue }) => (
  <>
    <dt>Mechanisms</dt>
    <dd>{experiment.mechanisms.map((name) => labelOf(catalogue?.mechanisms, name)).join(', ')}</dd>
    <dt>Payload sizes</dt>
    <dd>{experiment.data_sizes.map(formatDataSize).join(', ')}</dd>
    <dt>Repetitions</dt>
    <dd>{experiment.repetitions}</dd>
    <dt>Window (ms)</dt>
    <dd>{experiment.window_ms}</dd>
    <dt>Crypto library</dt>
    <dd>{CRYPTO_LIBRARY_LABELS[experiment.crypto_library]}</dd>
  </>
);

const KindParameters = ({ experiment, catalogue }: { experiment: Experiment; catalogue?: Catalogue }) => {
  switch (experiment.kind) {
    case 'messaging':
      return <MessagingParameters experiment={experiment} catalogue={catalogue} />;
    case 'cipher_bench':
      return <CipherBenchParameters experiment={experiment} catalogue={catalogue} />;
    case 'throughput':
      return <ThroughputParameters experiment={experiment} catalogue={catalogue} />;
  }
};

/** The design's matrix in words: its axes, excluded combinations and repeats. */
const MatrixParameters = ({ experiment, names }: { experiment: Experiment; names: ValueNames }) => {
  const axes = parseAxes(experiment.axes);
  const exclusions = parseExclusions(experiment.exclusions);
  return (
    <>
      {axes.map((axis) => (
        <Fragment key={axis.name}>
          <dt>Axis: {axis.name}</dt>
          <dd>{axis.values.map((value) => describeCell(value, names)).join(', ')}</dd>
        </Fragment>
      ))}
      {exclusions.length > 0 ? (
        <>
          <dt>Excluded</dt>
          <dd>{exclusions.map((exclusion) => describeCell(exclusion, names)).join('; ')}</dd>
        </>
      ) : null}
      <dt>Repeats</dt>
      <dd>{experiment.repeats}</dd>
    </>
  );
};

type ExperimentDetailsProps = {
  experiment: Experiment;
  /** device id → name, for showing which devices take part. */
  deviceNames: ReadonlyMap<string, string>;
  /** Labels for the kind and mechanisms; their names are shown until it loads. */
  catalogue?: Catalogue;
  onRunStarted: (run: Run) => void;
  /** Cancel / retry buttons of one run of the table (the route joins the runs feature). */
  renderRunActions?: (run: RunBrief) => ReactNode;
};

export const ExperimentDetails = ({
  experiment,
  deviceNames,
  catalogue,
  onRunStarted,
  renderRunActions,
}: ExperimentDetailsProps) => {
  const startRun = useStartRun({ mutationConfig: { onSuccess: (run) => onRunStarted(run) } });
  const names: ValueNames = {
    mechanism: (name) => labelOf(catalogue?.mechanisms, name),
    device: (id) => deviceNames.get(id) ?? id,
    profile: (id) => (id === experiment.network_profile ? (experiment.network_profile_name ?? id) : id),
  };

  return (
    <>
      <div className="actions">
        <button
          type="button"
          className="button button-primary"
          onClick={() => startRun.mutate({ experimentId: experiment.id })}
          disabled={startRun.isPending}
        >
          {hasSeveralRuns(experiment) ? 'Start runs' : 'Start run'}
        </button>
        <Link to={paths.newExperiment.getHref({ from: experiment.id })} className="button">
          Clone
        </Link>
        <a href={designFileUrl(experiment.id)} className="button" download>
          Export YAML
        </a>
      </div>
      {startRun.isError ? <ErrorAlert error={startRun.error} title="The runs could not start." /> : null}

      {experiment.description ? <p className="description">{experiment.description}</p> : null}

      <section className="panel" aria-labelledby="parameters-heading">
        <h2 id="parameters-heading" className="panel-title">
          Parameters
        </h2>
        <dl className="params">
          <dt>Kind</dt>
          <dd>{labelOf(catalogue?.experiment_kinds, experiment.kind)}</dd>
          <KindParameters experiment={experiment} catalogue={catalogue} />
          <MatrixParameters experiment={experiment} names={names} />
          <dt>Devices</dt>
          <dd>
            {experiment.device_ids.map((id) => deviceNames.get(id) ?? id).join(', ') || 'none'}
          </dd>
          <dt>Created</dt>
          <dd>{formatDateTime(experiment.created_at)}</dd>
        </dl>
      </section>

      <ExperimentRunsTable runs={experiment.runs} renderActions={renderRunActions} />
    </>
  );
};
