import { InputField, SelectField, type SelectOption } from '@/components/ui/form-field';

import { MQTTSN_TOPIC_ID_MAX } from '../../api/create-experiment';
import type { KindFieldsProps } from '../types';

import { ADDRESS_FIELDS, shownAddressFields, type AddressField } from './values';

/** "None": the agent's own gateway or echo server serves each device's runs. */
const NO_TARGET = '';

/** Each addressing field's label, placeholder and what leaving it empty means (docs/experiment-design.md "Topics and targets"). */
const ADDRESS_TEXT: Record<AddressField, { label: string; placeholder: string; hint: string }> = {
  topic: {
    label: 'Topic',
    placeholder: 'test/{device}',
    hint:
      'Empty: the per-run data topic iotsecbench/data/<run>/<device>. {device} stands for each device’s id; on the ' +
      'platform’s broker the topic must end in /{device}, a literal topic such as test/d1 needs an external broker. ' +
      'Round-trip and ack runs only.',
  },
  broker_url: {
    label: 'External broker',
    placeholder: 'mqtt://broker.example:1883',
    hint: 'Empty: the platform’s broker. mqtt:// or mqtts:// (keep transport TCP), no user or password. Round-trip and ack runs only.',
  },
  mqttsn_topic_id: {
    label: 'Predefined topic id',
    placeholder: '1',
    hint: `Empty: drawn from the run and the device. 1 to ${MQTTSN_TOPIC_ID_MAX}.`,
  },
  coap_url: {
    label: 'CoAP URL',
    placeholder: 'coap://host:5683/echo',
    hint: 'Empty: the agent’s own echo server, /echo. coap://host[:port]/path (coaps:// is not supported).',
  },
  coap_path: {
    label: 'CoAP resource path',
    placeholder: 'echo',
    hint: 'Empty: the CoAP URL’s own path, else echo. Segments without a leading / (e.g. sensors/temp), no ? or #.',
  },
  mqttsn_gateway: {
    label: 'MQTT-SN gateway',
    placeholder: 'host:10000',
    hint: 'Empty: the agent’s own gateway to the platform’s broker. host:port (IPv6: [addr]:port).',
  },
};

/** The target device's choices: none, then the workspace's devices that are not the runs' own
 * (the one chosen stays listed, so the API's answer on it shows where it was chosen). */
const targetOptions = (
  devices: KindFieldsProps<'messaging'>['options']['devices'],
  deviceIds: readonly string[],
  chosen: string,
): SelectOption[] => [
  { value: NO_TARGET, label: 'None (the agent’s own gateway or server)' },
  ...devices
    .filter((device) => device.id === chosen || !deviceIds.includes(device.id))
    .map((device) => ({ value: device.id, label: `${device.name}${device.online ? '' : ' (offline)'}` })),
];

/** The "Addressing and target" group: where the runs' messages go, each field for the protocols that have it. */
export const AddressFields = ({ draft, matrix, errors, onChange, options }: KindFieldsProps<'messaging'>) => {
  const shown = shownAddressFields(draft, matrix);
  const fields = ADDRESS_FIELDS.filter((field) => shown[field]);
  if (fields.length === 0 && !shown.target_device) return null;
  return (
    <fieldset>
      <legend>Addressing and target</legend>
      <div className="field-row">
        {shown.target_device ? (
          <SelectField
            label="Target device"
            hint="Another device of the workspace serves the runs as their MQTT-SN gateway or CoAP server; it must be online when a run starts."
            value={draft.target_device}
            onChange={onChange('target_device')}
            options={targetOptions(options.devices, options.deviceIds, draft.target_device)}
            error={errors.target_device}
          />
        ) : null}
        {shown.target_host ? (
          <InputField
            label="Target host"
            placeholder="10.0.0.5"
            hint="Empty: the address the target device reports. A host name or IP address, without port or scheme."
            value={draft.target_host}
            onChange={onChange('target_host')}
            error={errors.target_host}
            type="text"
            spellCheck={false}
            autoComplete="off"
          />
        ) : null}
        {fields.map((field) => (
          <InputField
            key={field}
            label={ADDRESS_TEXT[field].label}
            placeholder={ADDRESS_TEXT[field].placeholder}
            hint={ADDRESS_TEXT[field].hint}
            value={draft[field]}
            onChange={onChange(field)}
            error={errors[field]}
            {...(field === 'mqttsn_topic_id'
              ? { type: 'number', inputMode: 'numeric' as const, min: 1, max: MQTTSN_TOPIC_ID_MAX, step: 1 }
              : { type: 'text', spellCheck: false, autoComplete: 'off' })}
          />
        ))}
      </div>
    </fieldset>
  );
};
