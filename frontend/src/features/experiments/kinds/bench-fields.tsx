import { useMemo } from 'react';

import { InputField, SelectField } from '@/components/ui/form-field';


import { groupByFamily } from '../components/catalogue';
import type { Drafts } from '../components/experiment-form-values';
import { CRYPTO_LIBRARY_LABELS } from '../components/labels';
import { MechanismFieldset } from '../components/mechanism-fieldset';
import { VaryingField } from '../components/vary-controls';

import type { FieldChange, KindFieldsProps } from './types';

/** What the kinds that time mechanisms at several data sizes (cipher bench, throughput) share. */
type BenchDraft = Pick<Drafts['cipher_bench'], 'mechanisms' | 'data_sizes' | 'repetitions'>;

type BenchFieldProps<D extends BenchDraft> = Omit<KindFieldsProps<'cipher_bench'>, 'draft' | 'matrix' | 'onChange' | 'setDraft'> & {
  /** The kind's largest number of repetitions (the contract's limit). */
  repetitionsMax?: number;
  draft: D;
  onChange: (field: 'data_sizes' | 'repetitions') => FieldChange;
  setDraft: (update: (draft: D) => D) => void;
};

type MechanismsFieldProps<D extends BenchDraft> = BenchFieldProps<D> & {
  /** Which of the catalogue's mechanisms the kind offers; all of them when left out. */
  offers?: (mechanisms: Parameters<typeof groupByFamily>[0]) => Parameters<typeof groupByFamily>[0];
  hint?: string;
};

/** The "Mechanisms" checkboxes by family, and "One run per mechanism". */
export const MechanismsField = <D extends BenchDraft>({
  draft,
  errors,
  setDraft,
  clearError,
  vary,
  options: { catalogue },
  offers,
  hint,
}: MechanismsFieldProps<D>) => {
  const families = useMemo(
    () => groupByFamily(offers ? offers(catalogue.mechanisms) : catalogue.mechanisms),
    [catalogue.mechanisms, offers],
  );
  const toggle = (name: string, checked: boolean) => {
    setDraft((prev) => ({
      ...prev,
      // Catalogue order, whatever the click order: the run's results are listed that way.
      mechanisms: catalogue.mechanisms
        .map((m) => m.name)
        .filter((m) => (m === name ? checked : prev.mechanisms.includes(m))),
    }));
    clearError('mechanisms');
  };
  return (
    <VaryingField parameter="mechanisms" label="Mechanisms" vary={vary} splitNoun="mechanism">
      <MechanismFieldset
        families={families}
        selected={draft.mechanisms}
        onToggle={toggle}
        hint={hint}
        error={errors.mechanisms}
      />
    </VaryingField>
  );
};

type SizesFieldProps<D extends BenchDraft> = BenchFieldProps<D> & { label: string; noun: string; hint: string };

/** The comma-separated data sizes, and "One run per …". */
export const SizesField = <D extends BenchDraft>({ draft, errors, onChange, vary, label, noun, hint }: SizesFieldProps<D>) => (
  <VaryingField parameter="data_sizes" label={label} vary={vary} splitNoun={noun}>
    <InputField
      label={label}
      type="text"
      className="field-wide"
      value={draft.data_sizes}
      onChange={onChange('data_sizes')}
      hint={hint}
      error={errors.data_sizes}
    />
  </VaryingField>
);

/** How many times each measurement is repeated. */
export const RepetitionsField = <D extends BenchDraft>({
  draft,
  errors,
  onChange,
  vary,
  repetitionsMax,
}: BenchFieldProps<D>) => (
  <VaryingField parameter="repetitions" label="Repetitions" vary={vary} error={errors.repetitions}>
    <InputField
      label="Repetitions"
      type="number"
      inputMode="numeric"
      min={1}
      max={repetitionsMax}
      step={1}
      value={draft.repetitions}
      onChange={onChange('repetitions')}
      error={errors.repetitions}
    />
  </VaryingField>
);

type CryptoLibraryFieldProps = {
  /** The libraries the kind offers (throughput has no openssl-cli). */
  libraries: readonly (keyof typeof CRYPTO_LIBRARY_LABELS)[];
  value: string;
  error?: string[];
  onChange: FieldChange;
  vary: KindFieldsProps<'cipher_bench'>['vary'];
};

const CRYPTO_LIBRARY_HINT =
  'What implements the mechanisms. A mechanism the library does not provide is refused, naming both.';

/** The "Crypto library" select: pycryptodome, OpenSSL in-process or the openssl command. */
export const CryptoLibraryField = ({ libraries, value, error, onChange, vary }: CryptoLibraryFieldProps) => {
  const options = libraries.map((library) => ({ value: library, label: CRYPTO_LIBRARY_LABELS[library] }));
  return (
    <VaryingField parameter="crypto_library" label="Crypto library" vary={vary} options={options} error={error}>
      <SelectField
        label="Crypto library"
        value={value}
        onChange={onChange}
        options={options}
        hint={CRYPTO_LIBRARY_HINT}
        error={error}
      />
    </VaryingField>
  );
};
