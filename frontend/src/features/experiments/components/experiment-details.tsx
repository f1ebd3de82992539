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

/** The parameters an axis varies: their fixed values never apply, so they are not shown as fixed. */
type Varied = ReadonlySet<string>;

/** One fixed parameter's row, left out when an axis overrides it. */
const Param = ({ name, label, varied, children }: { name: string; label: string; varied: Varied; children: ReactNode }) =>
  varied.has(name) ? null : (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );

type ParamsProps = { experiment: Experiment; catalogue?: Catalogue; varied: Varied; names: ValueNames };

const MessagingParameters = ({ experiment, catalogue, varied, names }: ParamsProps) => (
  <>
    <Param name="protocol" label="Protocol" varied={varied}>
      {PROTOCOL_LABELS[experiment.protocol]}
    </Param>
    {experiment.protocol === 'coap' ? (
      <>
        <Param name="coap_type" label="CoAP message type" varied={varied}>
          {COAP_TYPE_LABELS[experiment.coap_type]}
        </Param>
        <Param name="coap_method" label="CoAP method" varied={varied}>
          {COAP_METHOD_LABELS[experiment.coap_method]}
        </Param>
      </>
    ) : (
      <>
        {experiment.protocol === 'mqttsn' ? (
          <Param name="topic_id_type" label="Topic id type" varied={varied}>
            {TOPIC_ID_TYPE_LABELS[experiment.topic_id_type]}
          </Param>
        ) : (
          <Param name="mqtt_version" label="MQTT version" varied={varied}>
            {MQTT_VERSION_LABELS[experiment.mqtt_version]}
          </Param>
        )}
        <Param name="qos" label="QoS" varied={varied}>
          {qosLabel(experiment.qos)}
        </Param>
      </>
    )}
    <Param name="transport" label="Transport" varied={varied}>
      {overUdp(experiment.protocol) ? 'UDP' : TRANSPORT_LABELS[experiment.transport]}
    </Param>
    {experiment.protocol === 'srup' ? (
      <Param name="srup_signature" label="SRUP signature" varied={varied}>
        {SRUP_SIGNATURE_LABELS[experiment.srup_signature]}
      </Param>
    ) : (
      <Param name="security" label="Payload security" varied={varied}>
        {labelOf(catalogue?.mechanisms, experiment.security)}
      </Param>
    )}
    {experiment.interleave_mechanisms.length > 0 ? (
      <>
        <dt>Interleaved mechanisms</dt>
        <dd>{experiment.interleave_mechanisms.map((m) => labelOf(catalogue?.mechanisms, m)).join(' / ')}</dd>
      </>
    ) : null}
    <Param name="payload_size" label="Payload size (bytes)" varied={varied}>
      {experiment.payload_size}
    </Param>
    <Param name="message_count" label="Messages per device" varied={varied}>
      {experiment.message_count}
    </Param>
    <Param name="interval_ms" label="Interval between messages (ms)" varied={varied}>
      {experiment.interval_ms}
    </Param>
    <Param name="interval_distribution" label="Interval distribution" varied={varied}>
      {INTERVAL_DISTRIBUTION_LABELS[experiment.interval_distribution]}
    </Param>
    <Param name="measurement" label="Measurement" varied={varied}>
      {MEASUREMENT_LABELS[experiment.measurement]}
    </Param>
    <Param name="network_profile" label="Network profile" varied={varied}>
      {experiment.network_profile ? (
        <Link to={paths.networkProfile.getHref(experiment.network_profile)}>
          {experiment.network_profile_name ?? experiment.network_profile}
        </Link>
      ) : (
        NO_NETWORK_PROFILE_LABEL
      )}
    </Param>
    <AddressingParameters experiment={experiment} names={names} />
  </>
);

/** The design's addressing and targets (docs/experiment-design.md "Topics and targets"), only those it sets. */
const AddressingParameters = ({ experiment, names }: { experiment: Experiment; names: ValueNames }) => {
  const target = experiment.target_device;
  const rows: [string, string | number | null][] = [
    ['Target host', experiment.target_host],
    ['Topic', experiment.topic],
    ['Predefined topic id', experiment.mqttsn_topic_id],
    ['External broker', experiment.broker_url],
    ['CoAP URL', experiment.coap_url],
    ['CoAP resource path', experiment.coap_path],
    ['MQTT-SN gateway', experiment.mqttsn_gateway],
  ];
  return (
    <>
      {target ? (
        <>
          <dt>Target device</dt>
          <dd>
            <Link to={paths.devices.getHref()}>{names.device(target)}</Link>
          </dd>
        </>
      ) : null}
      {rows
        .filter(([, value]) => value !== '' && value !== null)
        .map(([label, value]) => (
          <Fragment key={label}>
            <dt>{label}</dt>
            <dd>
              <code>{value}</code>
            </dd>
          </Fragment>
        ))}
    </>
  );
};

/** A cipher benchmark's or throughput test's mechanisms, sizes and library (both share them). */
const BenchParameters = ({ experiment, catalogue, varied, sizesLabel }: ParamsProps & { sizesLabel: string }) => (
  <>
    <Param name="mechanisms" label="Mechanisms" varied={varied}>
      {experiment.mechanisms.map((name) => labelOf(catalogue?.mechanisms, name)).join(', ')}
    </Param>
    <Param name="data_sizes" label={sizesLabel} varied={varied}>
      {experiment.data_sizes.map(formatDataSize).join(', ')}
    </Param>
    <Param name="repetitions" label="Repetitions" varied={varied}>
      {experiment.repetitions}
    </Param>
    {experiment.kind === 'throughput' ? (
      <Param name="window_ms" label="Window (ms)" varied={varied}>
        {experiment.window_ms}
      </Param>
    ) : null}
    <Param name="crypto_library" label="Crypto library" varied={varied}>
      {CRYPTO_LIBRARY_LABELS[experiment.crypto_library]}
    </Param>
  </>
);

const KindParameters = (props: ParamsProps) => {
  switch (props.experiment.kind) {
    case 'messaging':
      return <MessagingParameters {...props} />;
    case 'cipher_bench':
      return <BenchParameters {...props} sizesLabel="Data sizes" />;
    case 'throughput':
      return <BenchParameters {...props} sizesLabel="Payload sizes" />;
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
          <dd>
            <ul className="axis-values" aria-label={`Values of ${axis.name}`}>
              {axis.values.map((value) => {
                const words = describeCell(value, names);
                return <li key={words}>{words}</li>;
              })}
            </ul>
          </dd>
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
          <KindParameters
            experiment={experiment}
            catalogue={catalogue}
            varied={new Set(parseAxes(experiment.axes).flatMap((axis) => axis.values.flatMap(Object.keys)))}
            names={names}
          />
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
