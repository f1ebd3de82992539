import type { LinkDirection, NetworkProfileKind } from '@/types/api';

import type { Distribution } from '../api/link-spec';

/** Words for the network pages' enums. */

export const KIND_LABELS: Record<NetworkProfileKind, string> = {
  builtin_condition: 'SRUP condition (built-in)',
  measured_table: 'Measured table (built-in)',
  user: 'Yours',
};

export const KINDS = Object.keys(KIND_LABELS) as NetworkProfileKind[];

export const isKind = (value: string): value is NetworkProfileKind => (KINDS as string[]).includes(value);

/** Directions are named from the device's side, as netem on its interface would name them. */
export const DIRECTION_LABELS: Record<LinkDirection, string> = {
  both: 'Both directions',
  egress: 'Egress (device → platform)',
  ingress: 'Ingress (platform → device)',
};

export const DIRECTION_SHORT_LABELS: Record<LinkDirection, string> = {
  both: 'both',
  egress: 'egress',
  ingress: 'ingress',
};

export const DISTRIBUTION_LABELS: Record<Distribution, string> = {
  normal: 'normal',
  pareto: 'Pareto',
  paretonormal: 'Pareto-normal',
  uniform: 'uniform (µ ± jitter)',
  table: 'measured table',
};
