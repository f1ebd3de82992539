import type { ExperimentKind } from '@/types/api';

import type { KindFieldsProps } from './types';

import { kindForm } from '.';

type KindFieldsOf<K extends ExperimentKind> = { kind: K; props: KindFieldsProps<K> };

/** The fields of the chosen kind, from its entry in ./index.ts. */
export const KindFields = <K extends ExperimentKind>({ kind, props }: KindFieldsOf<K>) => {
  const { Fields } = kindForm(kind);
  return <Fields {...props} />;
};
