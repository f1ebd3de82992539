import { describe, expect, it } from 'vitest';

import type { RunSizes, SizeComponent } from '@/types/api';

import { carrierOf, describeSizes, describeWireBytes, sizeChartData, sizeTableRows } from './size-breakdown-data';

// The server's stack order, bottom first (results/services/sizes.py COMPONENTS).
const ORDER: readonly [SizeComponent['key'], string, SizeComponent['basis']][] = [
  ['link', 'Ethernet header', 'assumed'],
  ['ip', 'IPv4 header', 'assumed'],
  ['tcp', 'TCP header', 'assumed'],
  ['tls', 'TLS record overhead', 'measured'],
  ['mqtt_header', 'MQTT header', 'spec'],
  ['topic', 'Topic', 'spec'],
  ['srup_header', 'SRUP header', 'spec'],
  ['token', 'Token', 'spec'],
  ['iv', 'IV / nonce', 'spec'],
  ['payload', 'Payload', 'spec'],
  ['padding', 'Padding', 'spec'],
  ['tag', 'Tag / MAC', 'spec'],
  ['signature', 'Signature', 'spec'],
  ['unexplained', 'Unexplained', 'measured'],
];

const sizes = (bytes: Partial<Record<SizeComponent['key'], number>>, overrides: Partial<RunSizes> = {}): RunSizes => {
  const components = ORDER.map(([key, name, basis]) => ({ key, name, basis, bytes: bytes[key] ?? 0 }));
  return {
    run_id: 'r1',
    mechanism: null,
    mechanisms: [],
    protocol: 'mqtt',
    mqtt_version: '3.1.1',
    qos: 1,
    transport: 'tcp',
    security: 'aes-128-cbc',
    srup_signature: null,
    payload_size: 66,
    messages: 3,
    wire_bytes_median: 193,
    wire_bytes_min: 193,
    wire_bytes_max: 193,
    plaintext_bytes: 193,
    residual_bytes: 0,
    model_agrees: true,
    warning: null,
    segments: 1,
    frame_bytes: components.reduce((sum, c) => sum + c.bytes, 0),
    components,
    assumptions: [],
    reference_frames: [],
    ...overrides,
  };
};

// MQTT 3.1.1 QoS 1, AES-128-CBC on 66 bytes, 90-byte topic, plain TCP.
const AES = sizes({ link: 14, ip: 20, tcp: 32, mqtt_header: 7, topic: 90, iv: 16, payload: 66, padding: 14 });
// SRUP with Ed25519 over TLS 1.3 (22 bytes of TLS measured).
const SRUP_BYTES = { link: 14, ip: 20, tcp: 32, tls: 22, mqtt_header: 6, topic: 21, srup_header: 30, token: 36 };
const SRUP_SPEC = { protocol: 'srup', srup_signature: 'ed25519', mqtt_version: '5', security: 'none' };
const SRUP = sizes({ ...SRUP_BYTES, payload: 66, signature: 64 }, { run_id: 'r2', ...SRUP_SPEC, transport: 'tls1.3' });

describe('sizeChartData', () => {
  it('should stack one series per component with bytes, bottom first, one bar per run', () => {
    const data = sizeChartData([{ label: 'AES', sizes: AES }]);
    expect(data.categories).toEqual(['AES']);
    expect(data.series).toEqual([
      { name: 'Ethernet header', colourKey: 'link', values: [14] },
      { name: 'IPv4 header', colourKey: 'ip', values: [20] },
      { name: 'TCP header', colourKey: 'tcp', values: [32] },
      { name: 'MQTT header', colourKey: 'mqtt_header', values: [7] },
      { name: 'Topic', colourKey: 'topic', values: [90] },
      { name: 'IV / nonce', colourKey: 'iv', values: [16] },
      { name: 'Payload', colourKey: 'payload', values: [66] },
      { name: 'Padding', colourKey: 'padding', values: [14] },
    ]);
    const total = data.series.reduce((sum, s) => sum + (s.values[0] ?? 0), 0);
    expect(total).toBe(AES.frame_bytes);
  });

  it('should keep a component any run has, with 0 for the runs without it', () => {
    const data = sizeChartData([
      { label: 'AES', sizes: AES },
      { label: 'SRUP', sizes: SRUP },
    ]);
    expect(data.categories).toEqual(['AES', 'SRUP']);
    const byName = new Map(data.series.map((s) => [s.name, s.values]));
    expect(byName.get('TLS record overhead')).toEqual([0, 22]);
    expect(byName.get('Padding')).toEqual([14, 0]);
    expect(byName.get('Signature')).toEqual([0, 64]);
    expect(byName.get('Payload')).toEqual([66, 66]);
    expect(byName.has('Tag / MAC')).toBe(false);
    expect(byName.has('Unexplained')).toBe(false);
    // The stack order is the server's, whatever run brought a component in.
    expect(data.series.map((s) => s.name).indexOf('TLS record overhead')).toBe(3);
  });

  it('should draw nothing for no runs', () => {
    expect(sizeChartData([])).toEqual({ categories: [], series: [] });
  });
});

describe('sizeTableRows', () => {
  it('should list the parts with bytes top of the stack first, with how each is known', () => {
    const rows = sizeTableRows(SRUP);
    expect(rows.map((r) => [r.name, r.bytes])).toEqual([
      ['Signature', 64],
      ['Payload', 66],
      ['Token', 36],
      ['SRUP header', 30],
      ['Topic', 21],
      ['MQTT header', 6],
      ['TLS record overhead', 22],
      ['TCP header', 32],
      ['IPv4 header', 20],
      ['Ethernet header', 14],
    ]);
    expect(rows.find((r) => r.key === 'tls')?.basis).toBe('measured');
    expect(rows.find((r) => r.key === 'link')?.basis).toBe('assumed (below the socket)');
    expect(rows.find((r) => r.key === 'payload')?.basis).toBe('from the run’s parameters');
  });
});

describe('describeSizes', () => {
  it('should name protocol, QoS, security and transport', () => {
    const labels = new Map([['aes-128-cbc', 'AES-128-CBC']]);
    expect(describeSizes(AES, (name) => labels.get(name) ?? name)).toBe('MQTT 3.1.1, QoS 1, AES-128-CBC, TCP');
    expect(describeSizes(SRUP, (name) => name)).toBe('SRUP (ed25519) over MQTT 5, QoS 1, no payload security, TLS 1.3');
  });

  it("should name each run's own stack: CoAP and MQTT-SN over UDP, whatever the spec's MQTT transport", () => {
    const labels = new Map([['aes-128-gcm', 'AES-128-GCM']]);
    const label = (name: string) => labels.get(name) ?? name;
    expect(describeSizes(sizes({}, { protocol: 'coap', security: 'aes-128-gcm', transport: 'tcp' }), label)).toBe(
      'CoAP, AES-128-GCM, UDP',
    );
    expect(describeSizes(sizes({}, { protocol: 'mqttsn', security: 'none', transport: 'tcp' }), label)).toBe(
      'MQTT-SN, QoS 1, no payload security, UDP',
    );
    expect(carrierOf({ protocol: 'coap' })).toBe('UDP');
    expect(carrierOf({ protocol: 'srup' })).toBe('TCP');
  });
});

describe('describeWireBytes', () => {
  it('should state the measured median and its spread when the sizes vary', () => {
    expect(describeWireBytes(AES)).toBe('193 bytes (median of 3 delivered messages)');
    expect(describeWireBytes(sizes({}, { messages: 1, wire_bytes_max: 200 }))).toBe(
      '193 bytes (median of 1 delivered message, 193–200)',
    );
  });
});
