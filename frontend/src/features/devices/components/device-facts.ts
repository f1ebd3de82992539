import { formatBytes, MISSING } from '@/lib/format';
import type { Device } from '@/types/api';

/**
 * The agent reports `facts` as free-form JSON (hostname, cpu_model, cpu_cores,
 * ram_bytes, kernel, os, python_version, libraries, ...). Read them defensively:
 * an older agent may omit a key or send another type.
 */
export type DeviceFactsView = {
  hostname: string;
  /** The board (Raspberry Pi's device-tree model) or the PC's DMI product name. */
  hardwareModel: string;
  cpu: string;
  cores: string;
  ram: string;
  os: string;
  kernel: string;
  python: string;
  agentVersion: string;
  /** "name version" of each library the agent reports (paho-mqtt, pycryptodome, ...). */
  libraries: string[];
  /** Each network-emulation backend: whether it works here, and why not. */
  emulationBackends: EmulationBackend[];
  /** Whether the agent could enforce a run's network profile: the backends that work, or why none does. */
  networkEmulation: string;
};

const text = (value: unknown): string =>
  typeof value === 'string' && value.trim() !== ''
    ? value
    : typeof value === 'number' && Number.isFinite(value)
      ? String(value)
      : MISSING;

const bytes = (value: unknown): string => formatBytes(typeof value === 'number' ? value : null);

/**
 * `network_emulation`: `{backend: {available, reason}}` (docs/control-plane.md §2). "userspace"
 * when a backend works, "Cannot: <reasons>" when none does, a dash when the agent did not say.
 */
const networkEmulation = (value: unknown): string => {
  const status = emulationStatus(value);
  if (status === null) return MISSING;
  return status.working.length > 0 ? status.working.join(', ') : `Cannot: ${status.reason}`;
};

/** The backends that work (sorted), or why none does; null when the agent did not say. */
export type EmulationStatus = { working: string[]; reason: string };

export const emulationStatus = (value: unknown): EmulationStatus | null => {
  if (value === null || typeof value !== 'object') return null;
  const backends = Object.entries(value as Record<string, unknown>).filter(
    (entry): entry is [string, { available?: unknown; reason?: unknown }] =>
      entry[1] !== null && typeof entry[1] === 'object',
  );
  if (backends.length === 0) return null;
  const working = backends.filter(([, b]) => b.available === true).map(([name]) => name);
  const reasons = backends.map(([, b]) => (typeof b.reason === 'string' ? b.reason : '')).filter(Boolean);
  return { working: working.sort(), reason: reasons.join('; ') || 'no backend works here' };
};

export type EmulationBackend = { name: string; available: boolean; reason: string };

const emulationBackends = (value: unknown): EmulationBackend[] => {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>)
    .filter((entry): entry is [string, Record<string, unknown>] => entry[1] !== null && typeof entry[1] === 'object')
    .map(([name, backend]) => ({
      name,
      available: backend.available === true,
      reason: typeof backend.reason === 'string' ? backend.reason : '',
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
};

const libraries = (value: unknown): string[] =>
  value !== null && typeof value === 'object'
    ? Object.entries(value as Record<string, unknown>)
        .map(([name, version]) => `${name} ${text(version)}`)
        .sort()
    : [];

export const deviceFacts = (facts: Device['facts']): DeviceFactsView => ({
  hostname: text(facts.hostname),
  hardwareModel: text(facts.hardware_model),
  cpu: text(facts.cpu_model),
  cores: text(facts.cpu_cores),
  ram: bytes(facts.ram_bytes),
  os: text(facts.os),
  kernel: text(facts.kernel),
  python: text(facts.python_version),
  agentVersion: text(facts.agent_version),
  libraries: libraries(facts.libraries),
  emulationBackends: emulationBackends(facts.network_emulation),
  networkEmulation: networkEmulation(facts.network_emulation),
});

export const enrollCommand = (server: string, token: string): string =>
  `iotsecbench-agent enroll --server ${server} --token ${token} --state-dir ~/.iotsecbench-agent`;

/**
 * Everything to run on a Raspberry Pi (Raspberry Pi OS), in order: install the agent from a
 * checkout, check its cryptography, enroll with the token, run it (docs/agent-on-a-pi.md has
 * the service set-up). Same state directory as enrollCommand.
 */
export const raspberryPiCommands = (server: string, token: string): string[] => [
  'sudo apt install python3-venv python3-dev gcc',
  'python3 -m venv ~/iotsecbench-venv && ~/iotsecbench-venv/bin/pip install ./device-agent',
  '~/iotsecbench-venv/bin/iotsecbench-agent selftest',
  `~/iotsecbench-venv/bin/${enrollCommand(server, token)}`,
  '~/iotsecbench-venv/bin/iotsecbench-agent run --state-dir ~/.iotsecbench-agent',
];
