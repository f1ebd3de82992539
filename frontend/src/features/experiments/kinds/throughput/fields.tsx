import { InputField } from '@/components/ui/form-field';

import {
  THROUGHPUT_CRYPTO_LIBRARIES,
  THROUGHPUT_PAYLOAD_MAX_BYTES,
  THROUGHPUT_REPETITIONS_MAX,
  WINDOW_MS_MAX,
  WINDOW_MS_MIN,
} from '../../api/create-experiment';
import { PAYLOAD_SIZES_HINT } from '../../components/data-sizes';
import { VaryingField } from '../../components/vary-controls';
import { CryptoLibraryField, MechanismsField, RepetitionsField, SizesField } from '../bench-fields';
import type { KindFieldsProps } from '../types';

const RECEIVER_HINT =
  'Empty: a sink on the device itself (127.0.0.1). Else the UDP receiver the send windows go to, e.g. a gateway on another device: udp://host:port (IPv6: udp://[addr]:port).';

const BASELINE_HINT =
  'Keep "None" checked: it is the baseline, and each relative cost (packets/s without security ÷ packets/s with the mechanism) needs it.';

/**
 * A throughput experiment's fields: every mechanism (each is compared with "none"), payload
 * sizes, repetitions, the counting window and where the packets are sent.
 */
export const ThroughputFields = (props: KindFieldsProps<'throughput'>) => {
  const { draft, errors, onChange, vary } = props;
  return (
    <>
      <MechanismsField {...props} hint={BASELINE_HINT} />
      <div className="field-row">
        <SizesField
          {...props}
          label="Payload sizes"
          noun="payload size"
          hint={PAYLOAD_SIZES_HINT(THROUGHPUT_PAYLOAD_MAX_BYTES)}
        />
        <RepetitionsField {...props} repetitionsMax={THROUGHPUT_REPETITIONS_MAX} />
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
        <CryptoLibraryField
          libraries={THROUGHPUT_CRYPTO_LIBRARIES}
          value={draft.crypto_library}
          error={errors.crypto_library}
          onChange={onChange('crypto_library')}
          vary={vary}
        />
      </div>
      <InputField
        label="Receiver (udp://host:port)"
        type="text"
        className="field-wide"
        placeholder="udp://192.168.4.1:9999"
        value={draft.target_url}
        onChange={onChange('target_url')}
        hint={RECEIVER_HINT}
        error={errors.target_url}
      />
    </>
  );
};
