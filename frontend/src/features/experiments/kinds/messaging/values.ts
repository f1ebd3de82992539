import type { Measurement } from '@/types/api';

import {
  BROKER_PROTOCOLS,
  EXPERIMENT_DEFAULTS,
  MEASUREMENTS,
  messagingInputSchema,
  NO_SECURITY,
} from '../../api/create-experiment';
import { axisParameters, type AxisParameter } from '../../components/design-axes';
import type { Drafts, MatrixDraft } from '../../components/experiment-form-values';
import { fillDraft, toNumber } from '../draft-values';
import type { KindDraftContext, KindValues } from '../types';

/** A messaging design's fields: what its protocols allow, its defaults, its request. */

/** The values a messaging design runs of one parameter: its axis' values, else the fixed one. */
const runValues = (draft: Drafts['messaging'], matrix: MatrixDraft, parameter: 'protocol' | 'topic_id_type'): string[] => {
  const axis = matrix.axes.find((a) => axisParameters(a).includes(parameter));
  if (!axis) return [draft[parameter]];
  return axis.type === 'vary' ? axis.choices : axis.values.map((value) => String(value[parameter]));
};

/** The protocols a messaging design runs: its protocol axis' values, else the fixed one. */
export const messagingProtocols = (draft: Drafts['messaging'], matrix: MatrixDraft): string[] =>
  runValues(draft, matrix, 'protocol');

/** A messaging design's addressing and target fields (docs/experiment-design.md "Topics and targets"). */
export const ADDRESS_FIELDS = [
  'topic',
  'broker_url',
  'mqttsn_topic_id',
  'coap_url',
  'coap_path',
  'mqttsn_gateway',
] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];
/** The target device (a select of the workspace's devices) and the host that replaces its address. */
export type TargetField = 'target_device' | 'target_host';

/**
 * The addressing fields these runs can use (experiments/addressing.py): each is fixed for
 * the design, so it is shown only when every run's protocol has it: a topic for MQTT, an
 * external broker for MQTT and SRUP (neither for one-way runs), a CoAP URL and path for
 * CoAP, a gateway for MQTT-SN, and a topic id for MQTT-SN with predefined topic ids. A
 * target device serves MQTT-SN and CoAP round-trip and ack runs; once one is chosen, its
 * host can replace the address it reports, and the CoAP URL and the gateway are hidden (the
 * target's address is where the clients go; the API refuses both). Hidden fields are left
 * out of the input.
 */
export const shownAddressFields = (
  draft: Drafts['messaging'],
  matrix: MatrixDraft,
): Record<AddressField | TargetField, boolean> => {
  const protocols = messagingProtocols(draft, matrix);
  const every = (allowed: readonly string[]) => protocols.every((p) => allowed.includes(p));
  // One-way runs use the platform's broker and data topic (its controller sends on it).
  const oneWay = effectiveMeasurement(draft, protocols) === 'one_way';
  const targetDevice = every(['mqttsn', 'coap']) && !oneWay;
  const targeted = targetDevice && draft.target_device !== '';
  return {
    topic: every(['mqtt']) && !oneWay,
    broker_url: every(BROKER_PROTOCOLS) && !oneWay,
    mqttsn_topic_id: every(['mqttsn']) && runValues(draft, matrix, 'topic_id_type').every((t) => t === 'predefined'),
    coap_url: every(['coap']) && !targeted,
    coap_path: every(['coap']),
    mqttsn_gateway: every(['mqttsn']) && !targeted,
    target_device: targetDevice,
    target_host: targeted,
  };
};

/** The addressing fields that are shown and filled, as the API takes them; the rest left out (the defaults). */
const addressInput = (draft: Drafts['messaging'], matrix: MatrixDraft) => {
  const shown = shownAddressFields(draft, matrix);
  const filled = (field: AddressField | TargetField) => shown[field] && draft[field].trim() !== '';
  return {
    ...(filled('topic') ? { topic: draft.topic.trim() } : {}),
    ...(filled('broker_url') ? { broker_url: draft.broker_url.trim() } : {}),
    ...(filled('mqttsn_topic_id') ? { mqttsn_topic_id: toNumber(draft.mqttsn_topic_id) } : {}),
    ...(filled('coap_url') ? { coap_url: draft.coap_url.trim() } : {}),
    ...(filled('coap_path') ? { coap_path: draft.coap_path.trim() } : {}),
    ...(filled('mqttsn_gateway') ? { mqttsn_gateway: draft.mqttsn_gateway.trim() } : {}),
    ...(filled('target_device') ? { target_device: draft.target_device } : {}),
    ...(filled('target_host') ? { target_host: draft.target_host.trim() } : {}),
  };
};

/**
 * The messaging fields that mean something for these protocols (experiments/rules.py
 * _protocol_errors): only broker protocols (MQTT, SRUP) have an MQTT version, TLS and
 * network profiles; SRUP signs instead of securing the payload; CoAP has a message type and
 * method instead of a QoS; MQTT-SN a topic id type. Hidden fields are sent as their
 * neutral values and cannot vary.
 */
export const shownMessagingFields = (protocols: readonly string[]) => {
  const broker = protocols.some((p) => (BROKER_PROTOCOLS as readonly string[]).includes(p));
  return {
    mqtt_version: broker,
    transport: broker,
    network_profile: broker,
    srup_signature: protocols.includes('srup'),
    security: protocols.some((p) => p !== 'srup'),
    qos: protocols.some((p) => p !== 'coap'),
    coap_type: protocols.includes('coap'),
    coap_method: protocols.includes('coap'),
    topic_id_type: protocols.includes('mqttsn'),
  } satisfies Partial<Record<AxisParameter, boolean>>;
};

/** The protocols whose round trips can interleave mechanisms (experiments/rules.py interleave_errors). */
const INTERLEAVE_PROTOCOLS: readonly string[] = ['mqtt', 'coap'];

/** Whether these protocols can alternate mechanisms message by message (MQTT and CoAP round trips). */
export const canInterleave = (protocols: readonly string[]): boolean =>
  protocols.every((p) => INTERLEAVE_PROTOCOLS.includes(p));

/** The protocols whose messages an `ack` run times until their acknowledgement (MQTT's PUBACK or
 * PUBCOMP, MQTT-SN's PUBACK, CoAP's ACK); the API answers SRUP with a field error on `measurement`. */
const ACK_PROTOCOLS: readonly string[] = ['mqtt', 'mqttsn', 'coap'];

/**
 * The measurements these protocols allow: one way only when every protocol goes through the
 * broker (the API answers CoAP and MQTT-SN with a field error on `measurement`), ack only when
 * every protocol has an acknowledgement the agent times.
 */
export const offeredMeasurements = (protocols: readonly string[]): readonly Measurement[] =>
  MEASUREMENTS.filter(
    (m) =>
      m === 'round_trip' ||
      (m === 'one_way' && protocols.every((p) => (BROKER_PROTOCOLS as readonly string[]).includes(p))) ||
      (m === 'ack' && protocols.every((p) => ACK_PROTOCOLS.includes(p))),
  );

/** The draft's measurement if the protocols allow it, else round trip (what is shown and sent). */
export const effectiveMeasurement = (draft: Drafts['messaging'], protocols: readonly string[]): string =>
  (offeredMeasurements(protocols) as readonly string[]).includes(draft.measurement)
    ? draft.measurement
    : EXPERIMENT_DEFAULTS.measurement;

type ShownField = keyof ReturnType<typeof shownMessagingFields>;

const isShownField = (parameter: AxisParameter): parameter is ShownField => parameter in shownMessagingFields([]);

const DEFAULTS: Drafts['messaging'] = {
  protocol: EXPERIMENT_DEFAULTS.protocol,
  srup_signature: EXPERIMENT_DEFAULTS.srup_signature,
  mqtt_version: EXPERIMENT_DEFAULTS.mqtt_version,
  transport: EXPERIMENT_DEFAULTS.transport,
  qos: String(EXPERIMENT_DEFAULTS.qos),
  coap_type: EXPERIMENT_DEFAULTS.coap_type,
  coap_method: EXPERIMENT_DEFAULTS.coap_method,
  topic_id_type: EXPERIMENT_DEFAULTS.topic_id_type,
  security: EXPERIMENT_DEFAULTS.security,
  interleave_mechanisms: [],
  payload_size: String(EXPERIMENT_DEFAULTS.payload_size),
  message_count: String(EXPERIMENT_DEFAULTS.message_count),
  interval_ms: String(EXPERIMENT_DEFAULTS.interval_ms),
  interval_distribution: EXPERIMENT_DEFAULTS.interval_distribution,
  measurement: EXPERIMENT_DEFAULTS.measurement,
  network_profile: '',
  topic: '',
  broker_url: '',
  mqttsn_topic_id: '',
  coap_url: '',
  coap_path: '',
  mqttsn_gateway: '',
  target_device: '',
  target_host: '',
};

const toInput = ({ draft, matrix }: KindDraftContext<'messaging'>) => {
  const protocols = messagingProtocols(draft, matrix);
  const shown = shownMessagingFields(protocols);
  return {
    protocol: draft.protocol,
    srup_signature: draft.srup_signature,
    mqtt_version: draft.mqtt_version,
    transport: shown.transport ? draft.transport : EXPERIMENT_DEFAULTS.transport,
    qos: toNumber(draft.qos),
    coap_type: draft.coap_type,
    coap_method: draft.coap_method,
    topic_id_type: draft.topic_id_type,
    // SRUP signs every message itself; its payload goes unencrypted inside the signature.
    security: shown.security ? draft.security : NO_SECURITY,
    // Only where the protocols interleave; the rotation replaces security, which the server
    // then wants at none (its field error says so).
    interleave_mechanisms: canInterleave(protocols) ? draft.interleave_mechanisms : [],
    payload_size: toNumber(draft.payload_size),
    message_count: toNumber(draft.message_count),
    interval_ms: toNumber(draft.interval_ms),
    interval_distribution: draft.interval_distribution,
    measurement: effectiveMeasurement(draft, protocols),
    // "" is "None (no shaping)": left out, so the server applies its default (none).
    ...(draft.network_profile && shown.network_profile ? { network_profile: draft.network_profile } : {}),
    ...addressInput(draft, matrix),
  };
};

export const MESSAGING_VALUES: KindValues<'messaging'> = {
  defaults: DEFAULTS,
  schema: messagingInputSchema,
  numberSchemas: {
    payload_size: messagingInputSchema.shape.payload_size,
    message_count: messagingInputSchema.shape.message_count,
    interval_ms: messagingInputSchema.shape.interval_ms,
  },
  toInput,
  fromDesign: (design) => fillDraft(DEFAULTS, design),
  isShown: (parameter, { draft, matrix }) =>
    !isShownField(parameter) || shownMessagingFields(messagingProtocols(draft, matrix))[parameter],
};
