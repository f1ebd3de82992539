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

/** One row of the parameters list: `name` is the parameter an axis may vary (its fixed value then never applies). */
type ParamRow = { name: string; label: string; value: ReactNode };

/** The rows `when` holds for, else none: a parameter shown only for some designs. */
const when = (condition: boolean, ...rows: ParamRow[]): ParamRow[] => (condition ? rows : []);

const messagingRows = (experiment: Experiment, catalogue: Catalogue | undefined, names: ValueNames): ParamRow[] => {
  const { protocol } = experiment;
  return [
    { name: 'protocol', label: 'Protocol', value: PROTOCOL_LABELS[protocol] },
    ...when(
      protocol === 'coap',
      { name: 'coap_type', label: 'CoAP message type', value: COAP_TYPE_LABELS[experiment.coap_type] },
      { name: 'coap_method', label: 'CoAP method', value: COAP_METHOD_LABELS[experiment.coap_method] },
    ),
    ...when(protocol === 'mqttsn', {
      name: 'topic_id_type',
      label: 'Topic id type',
      value: TOPIC_ID_TYPE_LABELS[experiment.topic_id_type],
    }),
    ...when(protocol !== 'coap' && protocol !== 'mqttsn', {
      name: 'mqtt_version',
      label: 'MQTT version',
      value: MQTT_VERSION_LABELS[experiment.mqtt_version],
    }),
    ...when(protocol !== 'coap', { name: 'qos', label: 'QoS', value: qosLabel(experiment.qos) }),
    {
      name: 'transport',
      label: 'Transport',
      value: overUdp(protocol) ? 'UDP' : TRANSPORT_LABELS[experiment.transport],
    },
    protocol === 'srup'
      ? { name: 'srup_signature', label: 'SRUP signature', value: SRUP_SIGNATURE_LABELS[experiment.srup_signature] }
      : { name: 'security', label: 'Payload security', value: labelOf(catalogue?.mechanisms, experiment.security) },
    ...when(experiment.interleave_mechanisms.length > 0, {
      name: 'interleave_mechanisms',
      label: 'Interleaved mechanisms',
      value: experiment.interleave_mechanisms.map((m) => labelOf(catalogue?.mechanisms, m)).join(' / '),
    }),
    { name: 'payload_size', label: 'Payload size (bytes)', value: experiment.payload_size },
    { name: 'message_count', label: 'Messages per device', value: experiment.message_count },
    { name: 'interval_ms', label: 'Interval between messages (ms)', value: experiment.interval_ms },
    {
      name: 'interval_distribution',
      label: 'Interval distribution',
      value: INTERVAL_DISTRIBUTION_LABELS[experiment.interval_distribution],
    },
    { name: 'measurement', label: 'Measurement', value: MEASUREMENT_LABELS[experiment.measurement] },
    {
      name: 'network_profile',
      label: 'Network profile',
      value: experiment.network_profile ? (
        <Link to={paths.networkProfile.getHref(experiment.network_profile)}>
          {experiment.network_profile_name ?? experiment.network_profile}
        </Link>
      ) : (
        NO_NETWORK_PROFILE_LABEL
      ),
    },
    ...addressingRows(experiment, names),
  ];
};

/** The design's addressing and targets (docs/experiment-design.md "Topics and targets"), only those it sets. */
const addressingRows = (experiment: Experiment, names: ValueNames): ParamRow[] => {
  const target = experiment.target_device;
  const texts: [string, string, string | number | null][] = [
    ['target_host', 'Target host', experiment.target_host],
    ['topic', 'Topic', experiment.topic],
    ['mqttsn_topic_id', 'Predefined topic id', experiment.mqttsn_topic_id],
    ['broker_url', 'External broker', experiment.broker_url],
    ['coap_url', 'CoAP URL', experiment.coap_url],
    ['coap_path', 'CoAP resource path', experiment.coap_path],
    ['mqttsn_gateway', 'MQTT-SN gateway', experiment.mqttsn_gateway],
  ];
  return [
    ...when(target !== null, {
      name: 'target_device',
      label: 'Target device',
      value: <Link to={paths.devices.getHref()}>{target ? names.device(target) : null}</Link>,
    }),
    ...texts
      .filter(([, , value]) => value !== '' && value !== null)
      .map(([name, label, value]) => ({ name, label, value: <code>{value}</code> })),
  ];
};

/** A cipher benchmark's or throughput test's mechanisms, sizes and library (both share them). */
const benchRows = (experiment: Experiment, catalogue: Catalogue | undefined, sizesLabel: string): ParamRow[] => [
  {
    name: 'mechanisms',
    label: 'Mechanisms',
    value: experiment.mechanisms.map((name) => labelOf(catalogue?.mechanisms, name)).join(', '),
  },
  { name: 'data_sizes', label: sizesLabel, value: experiment.data_sizes.map(formatDataSize).join(', ') },
  { name: 'repetitions', label: 'Repetitions', value: experiment.repetitions },
  ...when(experiment.kind === 'throughput', { name: 'window_ms', label: 'Window (ms)', value: experiment.window_ms }),
  ...when(experiment.kind === 'throughput', {
    name: 'target_url',
    label: 'Receiver',
    value: experiment.target_url ? <code>{experiment.target_url}</code> : 'A sink on the device itself (127.0.0.1)',
  }),
  { name: 'crypto_library', label: 'Crypto library', value: CRYPTO_LIBRARY_LABELS[experiment.crypto_library] },
];

const kindRows = (experiment: Experiment, catalogue: Catalogue | undefined, names: ValueNames): ParamRow[] => {
  switch (experiment.kind) {
    case 'messaging':
      return messagingRows(experiment, catalogue, names);
    case 'cipher_bench':
      return benchRows(experiment, catalogue, 'Data sizes');
    case 'throughput':
      return benchRows(experiment, catalogue, 'Payload sizes');
  }
};

/**
 * How the runs are ordered: the design's seed, else the one drawn at the latest start
 * (recorded on its runs, docs/experiment-design.md "Run order").
 */
export const runOrderWords = (experiment: Pick<Experiment, 'order_seed' | 'runs'>): string => {
  if (experiment.order_seed !== null) return `Seed ${experiment.order_seed}, set in the design: every start runs in this order`;
  const latest = [...experiment.runs]
    .filter((run) => run.order_seed !== null)
    .sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
  return latest
    ? `Seed ${latest.order_seed}, drawn at the latest start (give it as a clone's seed to run in this order again)`
    : 'A fresh seed at each start, recorded with its runs';
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
      {hasSeveralRuns(experiment) ? (
        <>
          <dt>Run order</dt>
          <dd>{runOrderWords(experiment)}</dd>
        </>
      ) : null}
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
  // The parameters an axis varies: their fixed values never apply, so they are not shown as fixed.
  const varied = new Set(parseAxes(experiment.axes).flatMap((axis) => axis.values.flatMap(Object.keys)));

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
          {kindRows(experiment, catalogue, names)
            .filter((row) => !varied.has(row.name))
            .map((row) => (
              <Fragment key={row.name}>
                <dt>{row.label}</dt>
                <dd>{row.value}</dd>
              </Fragment>
            ))}
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
