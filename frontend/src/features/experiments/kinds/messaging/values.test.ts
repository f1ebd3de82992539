import { describe, expect, it } from 'vitest';

import { MESSAGING_VALUES, shownAddressFields } from './values';

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

  it('should send the interleaved mechanisms for MQTT and CoAP and none for SRUP or MQTT-SN', () => {
    const draft = { ...MESSAGING_VALUES.defaults, interleave_mechanisms: ['none', 'null', 'aes-128-cbc'] };
    const rotation = ['none', 'null', 'aes-128-cbc'];
    for (const protocol of ['mqtt', 'coap']) {
      const input = MESSAGING_VALUES.toInput({ draft: { ...draft, protocol }, matrix: NO_AXES, sizes: [] });
      expect(input).toMatchObject({ interleave_mechanisms: rotation, security: 'none' });
    }
    for (const protocol of ['srup', 'mqttsn']) {
      const input = MESSAGING_VALUES.toInput({ draft: { ...draft, protocol }, matrix: NO_AXES, sizes: [] });
      expect(input).toMatchObject({ interleave_mechanisms: [] });
    }
  });

  it('should fill the interleaved mechanisms of a design back into its draft', () => {
    const draft = MESSAGING_VALUES.fromDesign({ protocol: 'mqtt', interleave_mechanisms: ['none', 'aes-128-cbc'] });
    expect(draft.interleave_mechanisms).toEqual(['none', 'aes-128-cbc']);
  });

  it('should fill its draft from a design and keep its defaults for the rest', () => {
    const draft = MESSAGING_VALUES.fromDesign({ protocol: 'coap', payload_size: 128, mechanisms: ['aes-128-cbc'] });
    expect(draft).toEqual({ ...MESSAGING_VALUES.defaults, protocol: 'coap', payload_size: '128' });
  });

  it('should send an addressing field only when it is filled and its protocol has it', () => {
    const context = (draft: Partial<typeof MESSAGING_VALUES.defaults>) => ({
      draft: { ...MESSAGING_VALUES.defaults, ...draft },
      matrix: NO_AXES,
      sizes: [],
    });
    const empty = MESSAGING_VALUES.toInput(context({ broker_url: '  ' }));
    for (const field of ['topic', 'broker_url', 'mqttsn_topic_id', 'coap_url', 'coap_path', 'mqttsn_gateway']) {
      expect(empty).not.toHaveProperty(field);
    }
    expect(MESSAGING_VALUES.toInput(context({ topic: ' test/{device} ', broker_url: 'mqtts://b.example' }))).toMatchObject({
      topic: 'test/{device}',
      broker_url: 'mqtts://b.example',
    });
    // Typed under another protocol, then the protocol changed: left out, as the field is hidden.
    const coap = MESSAGING_VALUES.toInput(
      context({ protocol: 'coap', topic: 'test/{device}', coap_url: 'coap://h', coap_path: ' sensors/temp ' }),
    );
    expect(coap).toMatchObject({ coap_url: 'coap://h', coap_path: 'sensors/temp' });
    expect(coap).not.toHaveProperty('topic');
    const sn = context({ protocol: 'mqttsn', mqttsn_topic_id: '7', mqttsn_gateway: 'gw:10000' });
    expect(MESSAGING_VALUES.toInput(sn)).not.toHaveProperty('mqttsn_topic_id');
    expect(MESSAGING_VALUES.toInput({ ...sn, draft: { ...sn.draft, topic_id_type: 'predefined' } })).toMatchObject({
      mqttsn_topic_id: 7,
      mqttsn_gateway: 'gw:10000',
    });
  });

  it('should offer an addressing field only when every varied protocol has it', () => {
    const matrix = { axes: [{ type: 'vary' as const, parameter: 'protocol' as const, choices: ['mqtt', 'srup'], text: '' }], exclusions: [] };
    expect(shownAddressFields(MESSAGING_VALUES.defaults, matrix)).toEqual({
      topic: false,
      broker_url: true,
      mqttsn_topic_id: false,
      coap_url: false,
      coap_path: false,
      mqttsn_gateway: false,
      target_device: false,
      target_host: false,
    });
  });

  it('should offer a target device only when every run is MQTT-SN or CoAP', () => {
    const vary = (choices: string[]) => ({
      axes: [{ type: 'vary' as const, parameter: 'protocol' as const, choices, text: '' }],
      exclusions: [],
    });
    const shown = (choices: string[]) => shownAddressFields(MESSAGING_VALUES.defaults, vary(choices)).target_device;
    expect([shown(['mqttsn', 'coap']), shown(['coap']), shown(['mqttsn', 'mqtt']), shown(['srup'])]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  it('should offer the target host, and no CoAP URL or gateway, once a target device is chosen', () => {
    const coap = { ...MESSAGING_VALUES.defaults, protocol: 'coap' };
    const none = shownAddressFields(coap, NO_AXES);
    const chosen = shownAddressFields({ ...coap, target_device: 'd2' }, NO_AXES);
    expect([none.target_host, none.coap_url, none.coap_path]).toEqual([false, true, true]);
    expect([chosen.target_host, chosen.coap_url, chosen.coap_path]).toEqual([true, false, true]);
    const mqttsn = shownAddressFields({ ...coap, protocol: 'mqttsn', target_device: 'd2' }, NO_AXES);
    expect([mqttsn.target_host, mqttsn.mqttsn_gateway]).toEqual([true, false]);
  });

  it('should send the target device and host only when shown and filled', () => {
    const filled = {
      ...MESSAGING_VALUES.defaults,
      target_device: 'd2',
      target_host: ' 10.0.0.5 ',
      coap_url: 'coap://192.0.2.1/echo',
      mqttsn_gateway: '192.0.2.1:10000',
    };
    const send = (draft: typeof filled) => MESSAGING_VALUES.toInput({ draft, matrix: NO_AXES, sizes: [] });

    const coap = send({ ...filled, protocol: 'coap' });
    expect(coap).toMatchObject({ target_device: 'd2', target_host: '10.0.0.5' });
    expect(coap).not.toHaveProperty('coap_url');
    expect(send({ ...filled, protocol: 'mqttsn' })).not.toHaveProperty('mqttsn_gateway');
    const mqtt = send({ ...filled, protocol: 'mqtt' });
    expect(mqtt).not.toHaveProperty('target_device');
    expect(mqtt).not.toHaveProperty('target_host');
    const noTarget = send({ ...filled, protocol: 'coap', target_device: '' });
    expect(noTarget).not.toHaveProperty('target_host');
    expect(noTarget).toMatchObject({ coap_url: 'coap://192.0.2.1/echo' });
  });

  it('should fill the target device from a design, none as empty', () => {
    expect(MESSAGING_VALUES.fromDesign({ protocol: 'coap', target_device: 'd2', target_host: 'pi-2.lan' })).toMatchObject({
      target_device: 'd2',
      target_host: 'pi-2.lan',
    });
    expect(MESSAGING_VALUES.fromDesign({ protocol: 'coap', target_device: null }).target_device).toBe('');
  });

  it('should offer neither a topic nor an external broker for one-way runs', () => {
    const oneWay = { ...MESSAGING_VALUES.defaults, protocol: 'mqtt', measurement: 'one_way' };
    const shown = shownAddressFields(oneWay, NO_AXES);
    expect(shown.topic).toBe(false);
    expect(shown.broker_url).toBe(false);
    const draft = { ...oneWay, topic: 'test/{device}', broker_url: 'mqtt://b:1883' };
    const input = MESSAGING_VALUES.toInput({ draft, matrix: NO_AXES, sizes: [] });
    expect(input).toMatchObject({ measurement: 'one_way' });
    expect(input).not.toHaveProperty('topic');
    expect(input).not.toHaveProperty('broker_url');
  });

  it('should fill the addressing from a design, an unset topic id as empty', () => {
    const draft = MESSAGING_VALUES.fromDesign({ protocol: 'mqtt', topic: 'test/{device}', mqttsn_topic_id: null, broker_url: '' });
    expect(draft).toEqual({ ...MESSAGING_VALUES.defaults, protocol: 'mqtt', topic: 'test/{device}' });
  });
});
