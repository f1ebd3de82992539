import type { ChangeEvent } from 'react';

import { InputField, SelectField, type SelectOption, type SelectOptionGroup } from '@/components/ui/form-field';
import type { ExperimentKind } from '@/types/api';

import {
  ALL_QOS_LEVELS,
  BENCH_REPETITIONS_MAX,
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
  THROUGHPUT_PAYLOAD_MAX_BYTES,
  TOPIC_ID_TYPES,
  TRANSPORTS,
  WINDOW_MS_MAX,
  WINDOW_MS_MIN,
} from '../api/create-experiment';

import type { MechanismFamily } from './catalogue';
import { DATA_SIZES_HINT, PAYLOAD_SIZES_HINT } from './data-sizes';
import type { AxisParameter } from './design-axes';
import {
  effectiveMeasurement,
  offeredMeasurements,
  shownMessagingFields,
  type Drafts,
  type FieldErrorMap,
  type TextFieldOf,
} from './experiment-form-values';
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
} from './labels';
import { MechanismFieldset } from './mechanism-fieldset';
import { NETWORK_PROFILE_HINT } from './network-profile-options';
import { VaryingField, type VaryControls } from './vary-controls';

/** The fields of one kind of experiment, below the new-experiment form's name and kind. */

type FieldChange = (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => void;

type KindFieldsProps<K extends ExperimentKind> = {
  draft: Drafts[K];
  errors: FieldErrorMap;
  /** The change handler of one of the kind's text fields. */
  onChange: (field: TextFieldOf<K>) => FieldChange;
  /** Turns a field into an axis of the design. */
  vary: VaryControls;
};

type MechanismChoiceProps = {
  families: readonly MechanismFamily[];
  onToggleMechanism: (name: string, checked: boolean) => void;
};

const INTERVAL_DISTRIBUTION_HINT =
  'Uniform and exponential draw each gap at random, with the interval as their mean; each run stores its random seed.';

type MessagingFieldsProps = KindFieldsProps<'messaging'> & {
  securityOptions: readonly SelectOptionGroup[];
  /** "None (no shaping)" and the network profiles (see ./network-profile-options.ts). */
  networkProfileOptions: readonly (SelectOption | SelectOptionGroup)[];
  /** The protocols the design runs (one, or the protocol axis' values). */
  protocols: readonly string[];
};

const options = <T extends string | number>(values: readonly T[], label: (value: T) => string): SelectOption[] =>
  values.map((value) => ({ value: String(value), label: label(value) }));

/** QoS levels for these protocols: MQTT-SN adds -1 and has no 2. */
const qosLevels = (protocols: readonly string[]): readonly number[] => {
  if (!protocols.includes('mqttsn')) return QOS_LEVELS;
  return protocols.every((p) => p === 'mqttsn' || p === 'coap') ? MQTTSN_QOS_LEVELS : ALL_QOS_LEVELS;
};

export const MessagingFields = ({
  draft,
  errors,
  onChange,
  vary,
  securityOptions,
  networkProfileOptions,
  protocols,
}: MessagingFieldsProps) => {
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
    </>
  );
};

type RepetitionsFieldProps = { value: string; onChange: FieldChange; error?: string[]; vary: VaryControls };

const RepetitionsField = ({ value, onChange, error, vary }: RepetitionsFieldProps) => (
  <VaryingField parameter="repetitions" label="Repetitions" vary={vary} error={error}>
    <InputField
      label="Repetitions"
      type="number"
      inputMode="numeric"
      min={1}
      max={BENCH_REPETITIONS_MAX}
      step={1}
      value={value}
      onChange={onChange}
      error={error}
    />
  </VaryingField>
);

type CipherBenchFieldsProps = KindFieldsProps<'cipher_bench'> & MechanismChoiceProps;

export const CipherBenchFields = ({
  draft,
  errors,
  onChange,
  vary,
  families,
  onToggleMechanism,
}: CipherBenchFieldsProps) => (
  <>
    <VaryingField parameter="mechanisms" label="Mechanisms" vary={vary} splitNoun="mechanism">
      <MechanismFieldset
        families={families}
        selected={draft.mechanisms}
        onToggle={onToggleMechanism}
        error={errors.mechanisms}
      />
    </VaryingField>
    <div className="field-row">
      <VaryingField parameter="data_sizes" label="Data sizes" vary={vary} splitNoun="data size">
        <InputField
          label="Data sizes"
          type="text"
          className="field-wide"
          value={draft.data_sizes}
          onChange={onChange('data_sizes')}
          hint={DATA_SIZES_HINT}
          error={errors.data_sizes}
        />
      </VaryingField>
      <RepetitionsField
        value={draft.repetitions}
        onChange={onChange('repetitions')}
        error={errors.repetitions}
        vary={vary}
      />
    </div>
  </>
);

const BASELINE_HINT =
  'Keep "None" checked: it is the baseline, and each relative cost (packets/s without security ÷ packets/s with the mechanism) needs it.';

type ThroughputFieldsProps = KindFieldsProps<'throughput'> & MechanismChoiceProps;

export const ThroughputFields = ({
  draft,
  errors,
  onChange,
  vary,
  families,
  onToggleMechanism,
}: ThroughputFieldsProps) => (
  <>
    <VaryingField parameter="mechanisms" label="Mechanisms" vary={vary} splitNoun="mechanism">
      <MechanismFieldset
        families={families}
        selected={draft.mechanisms}
        onToggle={onToggleMechanism}
        hint={BASELINE_HINT}
        error={errors.mechanisms}
      />
    </VaryingField>
    <div className="field-row">
      <VaryingField parameter="data_sizes" label="Payload sizes" vary={vary} splitNoun="payload size">
        <InputField
          label="Payload sizes"
          type="text"
          className="field-wide"
          value={draft.data_sizes}
          onChange={onChange('data_sizes')}
          hint={PAYLOAD_SIZES_HINT(THROUGHPUT_PAYLOAD_MAX_BYTES)}
          error={errors.data_sizes}
        />
      </VaryingField>
      <RepetitionsField
        value={draft.repetitions}
        onChange={onChange('repetitions')}
        error={errors.repetitions}
        vary={vary}
      />
      <VaryingField parameter="window_ms" label="Window (ms)" vary={vary} error={errors.window_ms}>
        <InputField
          label="Window (ms)"
          type="number"
          inputMode="numeric"
          min={WINDOW_MS_MIN}
          max={WINDOW_MS_MAX}
          step={1}
          value={draft.window_ms}
          onChange={onChange('window_ms')}
          hint="Packets are counted per window, twice per repetition: securing only, then securing and sending."
          error={errors.window_ms}
        />
      </VaryingField>
    </div>
  </>
);
