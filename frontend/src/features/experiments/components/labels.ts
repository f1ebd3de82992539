import type { Experiment } from '@/types/api';

// Human labels for the wire values the catalogue does not describe. Security mechanisms and
// experiment kinds are labelled by GET /api/catalogue/ (see ./catalogue.ts); new protocols,
// MQTT versions, transports, interval distributions and measurements get a label here (the
// backend's choice label, see openapi.yaml) and an entry in create-experiment.ts.
export const PROTOCOL_LABELS: Record<Experiment['protocol'], string> = {
  mqtt: 'MQTT',
  srup: 'SRUP (signed MQTT)',
};
export const SRUP_SIGNATURE_LABELS: Record<Experiment['srup_signature'], string> = {
  'rsa-2048': 'RSA-2048 (PKCS#1 v1.5, SHA-256)',
  'rsa-4096': 'RSA-4096 (PKCS#1 v1.5, SHA-256)',
  ed25519: 'Ed25519',
};
export const MQTT_VERSION_LABELS: Record<Experiment['mqtt_version'], string> = {
  '3.1.1': 'MQTT 3.1.1',
  '5': 'MQTT 5',
};
export const TRANSPORT_LABELS: Record<Experiment['transport'], string> = {
  tcp: 'MQTT over TCP',
  'tls1.2': 'MQTT over TLS 1.2',
  'tls1.3': 'MQTT over TLS 1.3',
};
export const INTERVAL_DISTRIBUTION_LABELS: Record<Experiment['interval_distribution'], string> = {
  fixed: 'Fixed',
  uniform: 'Uniform random (0 to 2 x interval)',
  exponential: 'Exponential (Poisson arrivals)',
};
export const MEASUREMENT_LABELS: Record<Experiment['measurement'], string> = {
  round_trip: 'Round trip',
};
