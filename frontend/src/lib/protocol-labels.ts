import type { Experiment } from '@/types/api';

// The labels of a messaging design's protocol stack, shared by the experiments and the
// shared pages (features/experiments/components/labels.ts re-exports them with the rest).
export const PROTOCOL_LABELS: Record<Experiment['protocol'], string> = {
  mqtt: 'MQTT',
  srup: 'SRUP (signed MQTT)',
  coap: 'CoAP',
  mqttsn: 'MQTT-SN',
};
export const COAP_TYPE_LABELS: Record<Experiment['coap_type'], string> = {
  con: 'Confirmable (CON)',
  non: 'Non-confirmable (NON)',
};
export const COAP_METHOD_LABELS: Record<Experiment['coap_method'], string> = {
  get: 'GET',
  put: 'PUT',
  post: 'POST',
};
/** QoS -1 is MQTT-SN's publish without a connection. */
export const qosLabel = (qos: number): string => (qos === -1 ? '-1 (no connection)' : String(qos));
export const MQTT_VERSION_LABELS: Record<Experiment['mqtt_version'], string> = {
  '3.1.1': 'MQTT 3.1.1',
  '5': 'MQTT 5',
};
export const TRANSPORT_LABELS: Record<Experiment['transport'], string> = {
  tcp: 'MQTT over TCP',
  'tls1.2': 'MQTT over TLS 1.2',
  'tls1.3': 'MQTT over TLS 1.3',
};
/** CoAP and MQTT-SN run over UDP whatever the design's `transport` (an MQTT field) says. */
export const overUdp = (protocol: Experiment['protocol']): boolean => protocol === 'coap' || protocol === 'mqttsn';

/** How delivery is made reliable: MQTT's, SRUP's and MQTT-SN's QoS, CoAP's message type. */
export const reliabilityLabel = (e: Pick<Experiment, 'protocol' | 'qos' | 'coap_type'>): string =>
  e.protocol === 'coap' ? e.coap_type.toUpperCase() : `QoS ${qosLabel(e.qos)}`;

/** A messaging design's protocol stack in a few words: "MQTT: MQTT 3.1.1, QoS 1, MQTT over TCP",
 * "CoAP CON GET over UDP", "MQTT-SN, QoS 1, over UDP to the gateway". */
export const protocolSummary = (
  e: Pick<Experiment, 'protocol' | 'qos' | 'coap_type' | 'coap_method' | 'mqtt_version' | 'transport'>,
): string => {
  switch (e.protocol) {
    case 'coap':
      return `CoAP ${reliabilityLabel(e)} ${COAP_METHOD_LABELS[e.coap_method]} over UDP`;
    case 'mqttsn':
      return `MQTT-SN, ${reliabilityLabel(e)}, over UDP to the gateway`;
    default:
      return `${PROTOCOL_LABELS[e.protocol]}: ${MQTT_VERSION_LABELS[e.mqtt_version]}, ${reliabilityLabel(e)}, ${TRANSPORT_LABELS[e.transport]}`;
  }
};
