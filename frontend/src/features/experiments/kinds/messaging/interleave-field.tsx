import { useMemo } from 'react';

import { groupByFamily } from '../../components/catalogue';
import { MechanismFieldset } from '../../components/mechanism-fieldset';
import type { KindFieldsProps } from '../types';

const HINT =
  'Interleaved mode: each run alternates these mechanisms message by message on one connection ' +
  '(e.g. None, Null, AES-128-CBC) and its results split per mechanism, the precise way to measure ' +
  'a few µs of securing cost. Choose 2 to 8, include None as the baseline, and leave Payload ' +
  'security at None. None checked: not interleaved.';

/** The "Interleaved mechanisms" checkboxes of an MQTT or CoAP round-trip design, by family. */
export const InterleaveField = ({ draft, errors, setDraft, clearError, options: { catalogue } }: KindFieldsProps<'messaging'>) => {
  const families = useMemo(() => groupByFamily(catalogue.mechanisms), [catalogue.mechanisms]);
  const toggle = (name: string, checked: boolean) => {
    setDraft((prev) => ({
      ...prev,
      // Catalogue order, whatever the click order: the rotation sends them in that order.
      interleave_mechanisms: catalogue.mechanisms
        .map((m) => m.name)
        .filter((m) => (m === name ? checked : prev.interleave_mechanisms.includes(m))),
    }));
    clearError('interleave_mechanisms');
  };
  return (
    <MechanismFieldset
      legend="Interleaved mechanisms"
      families={families}
      selected={draft.interleave_mechanisms}
      onToggle={toggle}
      hint={HINT}
      error={errors.interleave_mechanisms}
    />
  );
};
