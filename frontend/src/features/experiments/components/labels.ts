import type { Experiment } from '@/types/api';

// Human labels for the wire values the catalogue does not describe. Security mechanisms and
// experiment kinds are labelled by GET /api/catalogue/ (see ./catalogue.ts); new protocols
// and measurements get a label here and an entry in create-experiment.ts.
export const PROTOCOL_LABELS: Record<Experiment['protocol'], string> = { mqtt: 'MQTT' };
export const MEASUREMENT_LABELS: Record<Experiment['measurement'], string> = {
  round_trip: 'Round trip',
};
