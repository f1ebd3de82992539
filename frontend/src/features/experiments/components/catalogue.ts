import type { Choice, MechanismInfo } from '@/types/api';

import { NO_SECURITY } from '../api/create-experiment';

export type MechanismFamily = { family: string; mechanisms: MechanismInfo[] };

/** Mechanisms grouped by family, families and mechanisms in catalogue order. */
export const groupByFamily = (mechanisms: readonly MechanismInfo[]): MechanismFamily[] => {
  const families = new Map<string, MechanismInfo[]>();
  for (const mechanism of mechanisms) {
    const members = families.get(mechanism.family);
    if (members) members.push(mechanism);
    else families.set(mechanism.family, [mechanism]);
  }
  return [...families].map(([family, members]) => ({ family, mechanisms: members }));
};

/** What a cipher benchmark can time: everything but "none". */
export const benchMechanisms = (mechanisms: readonly MechanismInfo[]): MechanismInfo[] =>
  mechanisms.filter((mechanism) => mechanism.name !== NO_SECURITY);

/** The label of a catalogue entry; its name while the catalogue is loading or if it is unknown. */
export const labelOf = (choices: readonly Choice[] | undefined, name: string): string =>
  choices?.find((choice) => choice.name === name)?.label ?? name;
