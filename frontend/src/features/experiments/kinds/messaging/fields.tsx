import { InputField, SelectField, type SelectOption, type SelectOptionGroup } from '@/components/ui/form-field';

import {
  ALL_QOS_LEVELS,
  COAP_METHODS,
  COAP_TYPES,
  INTERVAL_DISTRIBUTIONS,
  MESSAGE_COUNT_MAX,
  MQTT_VERSIONS,
  MQTTSN_QOS_LEVELS,
  PAYLOAD_SIZE_MAX_BYTES,
  PROTOCOLS,
  QOS_LEVELS,
  SRUP_SIGNATURES,
  TOPIC_ID_TYPES,
  TRANSPORTS,
} from '../../api/create-experiment';
import type { AxisParameter } from '../../components/design-axes';
import type { TextFieldOf } from '../../components/experiment-form-values';
import {
  COAP_METHOD_LABELS,
  COAP_TYPE_LABELS,
  INTERVAL_DISTRIBUTION_LABELS,
  MEASUREMENT_LABELS,
  MQTT_VERSION_LABELS,
  PROTOCOL_LABELS,
  qosLabel,
  SRUP_SIGNATURE_LABELS,
  TOPIC_ID_TYPE_LABELS,
  TRANSPORT_LABELS,
} from '../../components/labels';
import { NETWORK_PROFILE_HINT } from '../../components/network-profile-options';
import { VaryingField } from '../../components/vary-controls';
import type { KindFieldsProps } from '../types';

import { AddressFields } from './address-fields';
import { InterleaveField } from './interleave-field';
import {
  canInterleave,
  effectiveMeasurement,
  messagingProtocols,
  offeredMeasurements,
  shownMessagingFields,
} from './values';

const INTERVAL_DISTRIBUTION_HINT =
  'Uniform and exponential draw each gap at random, with the interval as their mean; each run stores its random seed.';

const options = <T extends string | number>(values: readonly T[], label: (value: T) => string): SelectOption[] =>
  values.map((value) => ({ value: String(value), label: label(value) }));

/** QoS levels for these protocols: MQTT-SN adds -1 and has no 2. */
const qosLevels = (protocols: readonly string[]): readonly number[] => {
  if (!protocols.includes('mqttsn')) return QOS_LEVELS;
  return protocols.every((p) => p === 'mqttsn' || p === 'coap') ? MQTTSN_QOS_LEVELS : ALL_QOS_LEVELS;
};

/** A messaging experiment's fields: protocol and its settings, load, measurement and network. */
export const MessagingFields = (props: KindFieldsProps<'messaging'>) => {
  const {
    draft,
    matrix,
    errors,
    onChange,
    vary,
    options: { securityOptions, networkProfileOptions },
  } = props;
  // The protocols the design runs (one, or the protocol axis' values).
  const protocols = messagingProtocols(draft, matrix);
  const shown = shownMessagingFields(protocols);
  const protocolOptions = options(PROTOCOLS, (p) => PROTOCOL_LABELS[p]);
  const qosOptions = options(qosLevels(protocols), qosLabel);
  const choice = (
    parameter: TextFieldOf<'messaging'> & AxisParameter,
    label: string,
    choices: readonly (SelectOption | SelectOptionGroup)[],
    hint?: string,
    error: string[] | undefined = errors[parameter],
    value: string = draft[parameter],
  ) => (
    <VaryingField parameter={parameter} label={label} vary={vary} options={choices} error={error}>
      <SelectField
        label={label}
        value={value}
        onChange={onChange(parameter)}
        options={choices}
        hint={hint}
        error={error}
      />
    </VaryingField>
  );
  const numbers = (parameter: 'payload_size' | 'message_count' | 'interval_ms', label: string, min: number, max?: number) => (
    <VaryingField parameter={parameter} label={label} vary={vary} error={errors[parameter]}>
      <InputField
        label={label}
        type="number"
        inputMode="numeric"
        min={min}
        max={max}
        step={1}
        value={draft[parameter]}
        onChange={onChange(parameter)}
        error={errors[parameter]}
      />
    </VaryingField>
  );
  return (
    <>
      <div className="field-row">
        {choice('protocol', 'Protocol', protocolOptions)}
        {shown.mqtt_version
          ? choice('mqtt_version', 'MQTT version', options(MQTT_VERSIONS, (v) => MQTT_VERSION_LABELS[v]))
          : null}
        {shown.transport ? choice('transport', 'Transport', options(TRANSPORTS, (t) => TRANSPORT_LABELS[t])) : null}
        {shown.qos ? choice('qos', 'QoS', qosOptions) : null}
        {shown.coap_type ? choice('coap_type', 'CoAP message type', options(COAP_TYPES, (t) => COAP_TYPE_LABELS[t])) : null}
        {shown.coap_method ? choice('coap_method', 'CoAP method', options(COAP_METHODS, (m) => COAP_METHOD_LABELS[m])) : null}
        {shown.topic_id_type
          ? choice('topic_id_type', 'MQTT-SN topic id type', options(TOPIC_ID_TYPES, (t) => TOPIC_ID_TYPE_LABELS[t]))
          : null}
        {shown.srup_signature
          ? choice(
              'srup_signature',
              'SRUP signature',
              options(SRUP_SIGNATURES, (v) => SRUP_SIGNATURE_LABELS[v]),
              'SRUP signs every message; the payload itself is not encrypted.',
              errors.srup_signature ?? (shown.security ? undefined : errors.security),
            )
          : null}
        {shown.security ? choice('security', 'Payload security', securityOptions) : null}
      </div>
      <div className="field-row">
        {numbers('payload_size', 'Payload size (bytes)', 1, PAYLOAD_SIZE_MAX_BYTES)}
        {numbers('message_count', 'Messages per device', 1, MESSAGE_COUNT_MAX)}
        {numbers('interval_ms', 'Interval between messages (ms)', 0)}
        {choice(
          'interval_distribution',
          'Interval distribution',
          options(INTERVAL_DISTRIBUTIONS, (d) => INTERVAL_DISTRIBUTION_LABELS[d]),
          INTERVAL_DISTRIBUTION_HINT,
        )}
      </div>
      <div className="field-row">
        {choice(
          'measurement',
          'Measurement',
          options(offeredMeasurements(protocols), (m) => MEASUREMENT_LABELS[m]),
          undefined,
          errors.measurement,
          effectiveMeasurement(draft, protocols),
        )}
        {shown.network_profile
          ? choice('network_profile', 'Network profile', networkProfileOptions, NETWORK_PROFILE_HINT)
          : null}
      </div>
      {canInterleave(protocols) ? <InterleaveField {...props} /> : null}
      <AddressFields {...props} />
    </>
  );
};
