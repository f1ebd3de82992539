import type { ChangeEvent } from 'react';

import { InputField, SelectField, type SelectOption, type SelectOptionGroup } from '@/components/ui/form-field';
import type { ExperimentKind } from '@/types/api';

import {
  BENCH_REPETITIONS_MAX,
  INTERVAL_DISTRIBUTIONS,
  MEASUREMENTS,
  MESSAGE_COUNT_MAX,
  MQTT_VERSIONS,
  PAYLOAD_SIZE_MAX_BYTES,
  PROTOCOLS,
  QOS_LEVELS,
  SRUP_SIGNATURES,
  THROUGHPUT_PAYLOAD_MAX_BYTES,
  TRANSPORTS,
  WINDOW_MS_MAX,
  WINDOW_MS_MIN,
} from '../api/create-experiment';

import type { MechanismFamily } from './catalogue';
import { DATA_SIZES_HINT, PAYLOAD_SIZES_HINT } from './data-sizes';
import type { Drafts, FieldErrorMap, TextFieldOf } from './experiment-form-values';
import {
  INTERVAL_DISTRIBUTION_LABELS,
  MEASUREMENT_LABELS,
  MQTT_VERSION_LABELS,
  PROTOCOL_LABELS,
  SRUP_SIGNATURE_LABELS,
  TRANSPORT_LABELS,
} from './labels';
import { MechanismFieldset } from './mechanism-fieldset';
import { NETWORK_PROFILE_HINT } from './network-profile-options';

/** The fields of one kind of experiment, below the new-experiment form's name and kind. */

type FieldChange = (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => void;

type KindFieldsProps<K extends ExperimentKind> = {
  draft: Drafts[K];
  errors: FieldErrorMap;
  /** The change handler of one of the kind's text fields. */
  onChange: (field: TextFieldOf<K>) => FieldChange;
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
};

export const MessagingFields = ({
  draft,
  errors,
  onChange,
  securityOptions,
  networkProfileOptions,
}: MessagingFieldsProps) => (
  <>
    <div className="field-row">
      <SelectField
        label="Protocol"
        value={draft.protocol}
        onChange={onChange('protocol')}
        options={PROTOCOLS.map((p) => ({ value: p, label: PROTOCOL_LABELS[p] }))}
        error={errors.protocol}
      />
      <SelectField
        label="MQTT version"
        value={draft.mqtt_version}
        onChange={onChange('mqtt_version')}
        options={MQTT_VERSIONS.map((v) => ({ value: v, label: MQTT_VERSION_LABELS[v] }))}
        error={errors.mqtt_version}
      />
      <SelectField
        label="Transport"
        value={draft.transport}
        onChange={onChange('transport')}
        options={TRANSPORTS.map((t) => ({ value: t, label: TRANSPORT_LABELS[t] }))}
        error={errors.transport}
      />
      <SelectField
        label="QoS"
        value={draft.qos}
        onChange={onChange('qos')}
        options={QOS_LEVELS.map((q) => ({ value: String(q), label: String(q) }))}
        error={errors.qos}
      />
      {draft.protocol === 'srup' ? (
        <SelectField
          label="SRUP signature"
          value={draft.srup_signature}
          onChange={onChange('srup_signature')}
          options={SRUP_SIGNATURES.map((v) => ({ value: v, label: SRUP_SIGNATURE_LABELS[v] }))}
          hint="SRUP signs every message; the payload itself is not encrypted."
          error={errors.srup_signature ?? errors.security}
        />
      ) : (
        <SelectField
          label="Payload security"
          value={draft.security}
          onChange={onChange('security')}
          options={securityOptions}
          error={errors.security}
        />
      )}
    </div>
    <div className="field-row">
      <InputField
        label="Payload size (bytes)"
        type="number"
        inputMode="numeric"
        min={1}
        max={PAYLOAD_SIZE_MAX_BYTES}
        step={1}
        value={draft.payload_size}
        onChange={onChange('payload_size')}
        error={errors.payload_size}
      />
      <InputField
        label="Messages per device"
        type="number"
        inputMode="numeric"
        min={1}
        max={MESSAGE_COUNT_MAX}
        step={1}
        value={draft.message_count}
        onChange={onChange('message_count')}
        error={errors.message_count}
      />
      <InputField
        label="Interval between messages (ms)"
        type="number"
        inputMode="numeric"
        min={0}
        step={1}
        value={draft.interval_ms}
        onChange={onChange('interval_ms')}
        error={errors.interval_ms}
      />
      <SelectField
        label="Interval distribution"
        value={draft.interval_distribution}
        onChange={onChange('interval_distribution')}
        options={INTERVAL_DISTRIBUTIONS.map((d) => ({ value: d, label: INTERVAL_DISTRIBUTION_LABELS[d] }))}
        hint={INTERVAL_DISTRIBUTION_HINT}
        error={errors.interval_distribution}
      />
    </div>
    <div className="field-row">
      <SelectField
        label="Measurement"
        value={draft.measurement}
        onChange={onChange('measurement')}
        options={MEASUREMENTS.map((m) => ({ value: m, label: MEASUREMENT_LABELS[m] }))}
        error={errors.measurement}
      />
      <SelectField
        label="Network profile"
        value={draft.network_profile}
        onChange={onChange('network_profile')}
        options={networkProfileOptions}
        hint={NETWORK_PROFILE_HINT}
        error={errors.network_profile}
      />
    </div>
  </>
);

const RepetitionsField = ({ value, onChange, error }: { value: string; onChange: FieldChange; error?: string[] }) => (
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
);

type CipherBenchFieldsProps = KindFieldsProps<'cipher_bench'> & MechanismChoiceProps;

export const CipherBenchFields = ({
  draft,
  errors,
  onChange,
  families,
  onToggleMechanism,
}: CipherBenchFieldsProps) => (
  <>
    <MechanismFieldset
      families={families}
      selected={draft.mechanisms}
      onToggle={onToggleMechanism}
      error={errors.mechanisms}
    />
    <div className="field-row">
      <InputField
        label="Data sizes"
        type="text"
        className="field-wide"
        value={draft.data_sizes}
        onChange={onChange('data_sizes')}
        hint={DATA_SIZES_HINT}
        error={errors.data_sizes}
      />
      <RepetitionsField value={draft.repetitions} onChange={onChange('repetitions')} error={errors.repetitions} />
    </div>
  </>
);

const BASELINE_HINT =
  'Keep "None" checked: it is the baseline, and each relative cost (packets/s without security ÷ packets/s with the mechanism) needs it.';

type ThroughputFieldsProps = KindFieldsProps<'throughput'> & MechanismChoiceProps;

export const ThroughputFields = ({ draft, errors, onChange, families, onToggleMechanism }: ThroughputFieldsProps) => (
  <>
    <MechanismFieldset
      families={families}
      selected={draft.mechanisms}
      onToggle={onToggleMechanism}
      hint={BASELINE_HINT}
      error={errors.mechanisms}
    />
    <div className="field-row">
      <InputField
        label="Payload sizes"
        type="text"
        className="field-wide"
        value={draft.data_sizes}
        onChange={onChange('data_sizes')}
        hint={PAYLOAD_SIZES_HINT(THROUGHPUT_PAYLOAD_MAX_BYTES)}
        error={errors.data_sizes}
      />
      <RepetitionsField value={draft.repetitions} onChange={onChange('repetitions')} error={errors.repetitions} />
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
    </div>
  </>
);
