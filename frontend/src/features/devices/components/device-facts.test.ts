import { describe, expect, it } from 'vitest';

import { MISSING } from '@/lib/format';

import { deviceFacts, enrollCommand } from './device-facts';

describe('deviceFacts', () => {
  it('should read the facts an agent reports', () => {
    expect(
      deviceFacts({
        hostname: 'pi-lab-1',
        cpu_model: 'Cortex-A72',
        cpu_cores: 4,
        ram_bytes: 4 * 1024 ** 3,
        os: 'Debian 12',
        python_version: '3.11.2',
      }),
    ).toEqual({
      hostname: 'pi-lab-1',
      cpu: 'Cortex-A72',
      cores: '4',
      ram: '4.0 GiB',
      os: 'Debian 12',
      python: '3.11.2',
      hardwareModel: MISSING,
      kernel: MISSING,
      agentVersion: MISSING,
      libraries: [],
      emulationBackends: [],
      networkEmulation: MISSING,
    });
  });

  it('should say which network emulation backend works, or why none does', () => {
    const works = { userspace: { available: true, reason: 'root' }, netem: { available: false, reason: 'no sch_netem' } };
    expect(deviceFacts({ network_emulation: works }).networkEmulation).toBe('userspace');
    const none = { userspace: { available: false, reason: 'needs root' }, netem: { available: false, reason: 'needs root (tc qdisc)' } };
    expect(deviceFacts({ network_emulation: none }).networkEmulation).toBe('Cannot: needs root; needs root (tc qdisc)');
    expect(deviceFacts({ network_emulation: 'yes' }).networkEmulation).toBe(MISSING);
  });

  it('should show a dash for missing or mistyped facts', () => {
    expect(deviceFacts({ hostname: '', cpu_cores: 'four', ram_bytes: '1GB' })).toEqual({
      hostname: MISSING,
      cpu: MISSING,
      cores: 'four',
      ram: MISSING,
      os: MISSING,
      python: MISSING,
      hardwareModel: MISSING,
      kernel: MISSING,
      agentVersion: MISSING,
      libraries: [],
      emulationBackends: [],
      networkEmulation: MISSING,
    });
  });

  it('should read the model, kernel, agent and library versions and each emulation backend', () => {
    const facts = deviceFacts({
      hardware_model: 'Raspberry Pi 4 Model B',
      kernel: '6.1.0-rpi7',
      agent_version: '0.4.0',
      libraries: { pycryptodome: '3.21.0', 'paho-mqtt': null },
      network_emulation: { userspace: { available: true, reason: '' }, netem: { available: false, reason: 'needs root' } },
    });
    expect(facts).toMatchObject({
      hardwareModel: 'Raspberry Pi 4 Model B',
      kernel: '6.1.0-rpi7',
      agentVersion: '0.4.0',
      libraries: [`paho-mqtt ${MISSING}`, 'pycryptodome 3.21.0'],
      emulationBackends: [
        { name: 'netem', available: false, reason: 'needs root' },
        { name: 'userspace', available: true, reason: '' },
      ],
    });
  });
});

describe('enrollCommand', () => {
  it('should build the agent command for this server', () => {
    expect(enrollCommand('https://bench.example', 'tok123')).toBe(
      'iotsecbench-agent enroll --server https://bench.example --token tok123 --state-dir ~/.iotsecbench-agent',
    );
  });
});
