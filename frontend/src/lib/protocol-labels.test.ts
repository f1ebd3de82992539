import { describe, expect, it } from 'vitest';

import { overUdp, protocolSummary, reliabilityLabel } from './protocol-labels';

const design = {
  protocol: 'mqtt',
  qos: 1,
  coap_type: 'con',
  coap_method: 'get',
  mqtt_version: '3.1.1',
  transport: 'tcp',
} as const;

describe('protocol labels', () => {
  it("should name each protocol's own reliability: QoS for MQTT, SRUP and MQTT-SN, the message type for CoAP", () => {
    expect(reliabilityLabel(design)).toBe('QoS 1');
    expect(reliabilityLabel({ ...design, protocol: 'mqttsn', qos: -1 })).toBe('QoS -1 (no connection)');
    expect(reliabilityLabel({ ...design, protocol: 'coap', coap_type: 'non' })).toBe('NON');
  });

  it('should never describe CoAP or MQTT-SN as MQTT over TCP', () => {
    expect(protocolSummary(design)).toBe('MQTT: MQTT 3.1.1, QoS 1, MQTT over TCP');
    expect(protocolSummary({ ...design, protocol: 'srup', transport: 'tls1.2' })).toBe(
      'SRUP (signed MQTT): MQTT 3.1.1, QoS 1, MQTT over TLS 1.2',
    );
    expect(protocolSummary({ ...design, protocol: 'coap' })).toBe('CoAP CON GET over UDP');
    expect(protocolSummary({ ...design, protocol: 'mqttsn' })).toBe('MQTT-SN, QoS 1, over UDP to the gateway');
    expect([overUdp('coap'), overUdp('mqttsn'), overUdp('mqtt'), overUdp('srup')]).toEqual([true, true, false, false]);
  });
});
