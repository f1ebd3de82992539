import { describe, expect, it } from 'vitest';

import { MESSAGING_VALUES } from './values';

const NO_AXES = { axes: [], exclusions: [] };

describe('MESSAGING_VALUES', () => {
  it('should send the fields of a broker protocol as typed, numbers as numbers', () => {
    const draft = { ...MESSAGING_VALUES.defaults, security: 'aes-128-cbc', transport: 'tls1.3', network_profile: 'p1', qos: '1' };
    expect(MESSAGING_VALUES.toInput({ draft, matrix: NO_AXES, sizes: [] })).toMatchObject({
      protocol: 'mqtt',
      security: 'aes-128-cbc',
      transport: 'tls1.3',
      qos: 1,
      network_profile: 'p1',
    });
  });

  it('should send the neutral values of the fields a protocol hides', () => {
    const draft = { ...MESSAGING_VALUES.defaults, protocol: 'coap', transport: 'tls1.3', network_profile: 'p1', measurement: 'one_way' };
    const input = MESSAGING_VALUES.toInput({ draft, matrix: NO_AXES, sizes: [] });
    expect(input).toMatchObject({ transport: 'tcp', measurement: 'round_trip' });
    expect(input).not.toHaveProperty('network_profile');
    const srup = MESSAGING_VALUES.toInput({ draft: { ...draft, protocol: 'srup', security: 'aes-128-cbc' }, matrix: NO_AXES, sizes: [] });
    expect(srup).toMatchObject({ security: 'none' });
  });

  it('should hide a field the varied protocols do not have', () => {
    const matrix = { axes: [{ type: 'vary' as const, parameter: 'protocol' as const, choices: ['coap', 'mqttsn'], text: '' }], exclusions: [] };
    const context = { draft: MESSAGING_VALUES.defaults, matrix, sizes: [] };
    expect(MESSAGING_VALUES.isShown?.('transport', context)).toBe(false);
    expect(MESSAGING_VALUES.isShown?.('topic_id_type', context)).toBe(true);
    expect(MESSAGING_VALUES.isShown?.('payload_size', context)).toBe(true);
  });

  it('should fill its draft from a design and keep its defaults for the rest', () => {
    const draft = MESSAGING_VALUES.fromDesign({ protocol: 'coap', payload_size: 128, mechanisms: ['aes-128-cbc'] });
    expect(draft).toEqual({ ...MESSAGING_VALUES.defaults, protocol: 'coap', payload_size: '128' });
  });
});
