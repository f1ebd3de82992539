import { BENCH_REPETITIONS_MAX, CRYPTO_LIBRARIES } from '../../api/create-experiment';
import { benchMechanisms } from '../../components/catalogue';
import { DATA_SIZES_HINT } from '../../components/data-sizes';
import { CryptoLibraryField, MechanismsField, RepetitionsField, SizesField } from '../bench-fields';
import type { KindFieldsProps } from '../types';

/** A cipher benchmark's fields: the mechanisms it can time, data sizes, repetitions. */
export const CipherBenchFields = (props: KindFieldsProps<'cipher_bench'>) => (
  <>
    <MechanismsField {...props} offers={benchMechanisms} />
    <div className="field-row">
      <SizesField {...props} label="Data sizes" noun="data size" hint={DATA_SIZES_HINT} />
      <RepetitionsField {...props} repetitionsMax={BENCH_REPETITIONS_MAX} />
      <CryptoLibraryField
        libraries={CRYPTO_LIBRARIES}
        value={props.draft.crypto_library}
        error={props.errors.crypto_library}
        onChange={props.onChange('crypto_library')}
        vary={props.vary}
      />
    </div>
  </>
);
