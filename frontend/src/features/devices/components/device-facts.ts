import { formatBytes, MISSING } from '@/lib/format';
import type { Device } from '@/types/api';

/**
 * The agent reports `facts` as free-form JSON (hostname, cpu_model, cpu_cores,
 * ram_bytes, kernel, os, python_version, libraries, ...). Read them defensively:
 * an older agent may omit a key or send another type.
 */
export type DeviceFactsView = {
  hostname: string;
  cpu: string;
  cores: string;
  ram: string;
  os: string;
  python: string;
};

const text = (value: unknown): string =>
  typeof value === 'string' && value.trim() !== ''
    ? value
    : typeof value === 'number' && Number.isFinite(value)
      ? String(value)
      : MISSING;

const bytes = (value: unknown): string => formatBytes(typeof value === 'number' ? value : null);

export const deviceFacts = (facts: Device['facts']): DeviceFactsView => ({
  hostname: text(facts.hostname),
  cpu: text(facts.cpu_model),
  cores: text(facts.cpu_cores),
  ram: bytes(facts.ram_bytes),
  os: text(facts.os),
  python: text(facts.python_version),
});

export const enrollCommand = (server: string, token: string): string =>
  `iotsecbench-agent enroll --server ${server} --token ${token} --state-dir ~/.iotsecbench-agent`;
