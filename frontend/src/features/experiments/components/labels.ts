import type { Experiment } from '@/types/api';

// Human labels for the wire values. The backend only accepts these so far; new
// protocols/security modes get a label here and an entry in create-experiment.ts.
export const PROTOCOL_LABELS: Record<Experiment['protocol'], string> = { mqtt: 'MQTT' };
export const SECURITY_LABELS: Record<Experiment['security'], string> = { none: 'None' };
export const MEASUREMENT_LABELS: Record<Experiment['measurement'], string> = {
  round_trip: 'Round trip',
};
