import {
  COAP_METHOD_LABELS,
  COAP_TYPE_LABELS,
  MQTT_VERSION_LABELS,
  PROTOCOL_LABELS,
  qosLabel,
  TRANSPORT_LABELS,
} from '@/lib/protocol-labels';
import type { Experiment } from '@/types/api';

import { wireToChoice } from './design-axes';

export {
  COAP_METHOD_LABELS,
  COAP_TYPE_LABELS,
  MQTT_VERSION_LABELS,
  overUdp,
  PROTOCOL_LABELS,
  protocolSummary,
  qosLabel,
  reliabilityLabel,
  TRANSPORT_LABELS,
} from '@/lib/protocol-labels';

// Human labels for the wire values the catalogue does not describe. Security mechanisms and
// experiment kinds are labelled by GET /api/catalogue/ (see ./catalogue.ts); new protocols,
// MQTT versions, transports, interval distributions and measurements get a label here (the
// backend's choice label, see openapi.yaml) and an entry in create-experiment.ts.
export const TOPIC_ID_TYPE_LABELS: Record<Experiment['topic_id_type'], string> = {
  normal: 'Normal (registered)',
  short: 'Short (2 characters)',
  predefined: 'Predefined',
};
export const SRUP_SIGNATURE_LABELS: Record<Experiment['srup_signature'], string> = {
  'rsa-2048': 'RSA-2048 (PKCS#1 v1.5, SHA-256)',
  'rsa-4096': 'RSA-4096 (PKCS#1 v1.5, SHA-256)',
  ed25519: 'Ed25519',
};
export const INTERVAL_DISTRIBUTION_LABELS: Record<Experiment['interval_distribution'], string> = {
  fixed: 'Fixed',
  uniform: 'Uniform random (0 to 2 x interval)',
  exponential: 'Exponential (Poisson arrivals)',
};
export const CRYPTO_LIBRARY_LABELS: Record<Experiment['crypto_library'], string> = {
  pycryptodome: 'pycryptodome',
  openssl: 'OpenSSL (cryptography binding)',
  'openssl-cli': 'OpenSSL command (openssl enc)',
};
export const MEASUREMENT_LABELS: Record<Experiment['measurement'], string> = {
  round_trip: 'Round trip',
  one_way: 'One way (controller to device)',
  ack: 'Acknowledgement (MQTT publish to PUBACK/PUBCOMP, MQTT-SN PUBLISH to PUBACK, CoAP CON to ACK)',
};

/** How the labels of a design's values find the names of what they refer to. */
export type ValueNames = {
  mechanism: (name: string) => string;
  device: (id: string) => string;
  profile: (id: string) => string;
};

const fromMap = (map: Readonly<Record<string, string>>, value: unknown): string =>
  map[wireToChoice(value)] ?? wireToChoice(value);

const eachOf = (value: unknown, name: (item: string) => string): string =>
  Array.isArray(value) ? value.map((item) => name(wireToChoice(item))).join(' + ') : name(wireToChoice(value));

/** One value of a design's parameter in words: "QoS 0", "AES-128-CBC", "1700 B", "pi-lab-1". */
export const describeValue = (parameter: string, value: unknown, names: ValueNames): string => {
  switch (parameter) {
    case 'protocol':
      return fromMap(PROTOCOL_LABELS, value);
    case 'mqtt_version':
      return fromMap(MQTT_VERSION_LABELS, value);
    case 'transport':
      return fromMap(TRANSPORT_LABELS, value);
    case 'srup_signature':
      return fromMap(SRUP_SIGNATURE_LABELS, value);
    case 'coap_type':
      return fromMap(COAP_TYPE_LABELS, value);
    case 'coap_method':
      return `CoAP ${fromMap(COAP_METHOD_LABELS, value)}`;
    case 'topic_id_type':
      return `${fromMap(TOPIC_ID_TYPE_LABELS, value)} topic id`;
    case 'interval_distribution':
      return fromMap(INTERVAL_DISTRIBUTION_LABELS, value);
    case 'measurement':
      return fromMap(MEASUREMENT_LABELS, value);
    case 'crypto_library':
      return fromMap(CRYPTO_LIBRARY_LABELS, value);
    case 'qos':
      return `QoS ${qosLabel(Number(value))}`;
    case 'security':
    case 'mechanisms':
      return eachOf(value, names.mechanism);
    case 'device_ids':
      return eachOf(value, names.device);
    case 'network_profile':
      return value === null ? 'No network profile' : names.profile(wireToChoice(value));
    case 'payload_size':
    case 'data_sizes':
      return eachOf(value, (size) => `${size} B`);
    case 'message_count':
      return `${wireToChoice(value)} messages`;
    case 'interval_ms':
      return `${wireToChoice(value)} ms apart`;
    case 'repetitions':
      return `${wireToChoice(value)} repetitions`;
    case 'window_ms':
      return `${wireToChoice(value)} ms windows`;
    default:
      return `${parameter} ${JSON.stringify(value)}`;
  }
};

/** A combination of values in words, in the order given: "MQTT · QoS 0 · AES-128-CBC". */
export const describeCell = (cell: Record<string, unknown>, names: ValueNames): string =>
  Object.entries(cell)
    .map(([parameter, value]) => describeValue(parameter, value, names))
    .join(' · ');
