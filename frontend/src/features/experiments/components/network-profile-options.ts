import type { SelectOption, SelectOptionGroup } from '@/components/ui/form-field';
import type { NetworkProfile, NetworkProfileKind } from '@/types/api';

/** What the design form needs of a network profile (the route passes the list in). */
export type NetworkProfileChoice = Pick<NetworkProfile, 'id' | 'name' | 'kind'>;

export const NO_NETWORK_PROFILE_LABEL = 'None (no shaping)';

export const NETWORK_PROFILE_HINT =
  'Enforced on the device by the userspace link emulator; the agent must run as root.';

// The paper's conditions first, then the measured tables, then the workspace's own. The list
// API answers the workspace's own first; within a group its order (SRUP 1–10, tables and
// own profiles by name) is kept.
const GROUPS: readonly { kind: NetworkProfileKind; label: string }[] = [
  { kind: 'builtin_condition', label: 'SRUP conditions (built-in)' },
  { kind: 'measured_table', label: 'Measured tables (built-in)' },
  { kind: 'user', label: 'Your workspace' },
];

/** The network-profile select's options: none, then one <optgroup> per kind that has profiles. */
export const networkProfileOptions = (
  profiles: readonly NetworkProfileChoice[],
): (SelectOption | SelectOptionGroup)[] => [
  { value: '', label: NO_NETWORK_PROFILE_LABEL },
  ...GROUPS.map(({ kind, label }) => ({
    label,
    options: profiles.filter((p) => p.kind === kind).map((p) => ({ value: p.id, label: p.name })),
  })).filter((group) => group.options.length > 0),
];
