import type { ChangeEvent, ComponentType } from 'react';

import type { SelectOption, SelectOptionGroup } from '@/components/ui/form-field';
import type { Catalogue, ExperimentKind } from '@/types/api';

import type {
  Drafts,
  FieldErrorMap,
  FieldName,
  MatrixDraft,
  TextFieldOf,
} from '../components/experiment-form-values';
import type { VaryControls } from '../components/vary-controls';

/**
 * The seam between the new-experiment form and a kind of experiment: the form keeps the
 * name, kind, description, devices, matrix and plan, and asks the kind's entry in
 * ./index.ts for the fields below the kind. A kind's fields get its own draft and matrix.
 */

export type FieldChange = (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => void;

/** What the form offers every kind: the catalogue and the choices it derives from it. */
export type KindFormOptions = {
  catalogue: Catalogue;
  /** The payload security select's choices: every mechanism, by family. */
  securityOptions: readonly SelectOptionGroup[];
  /** "None (no shaping)" and the network profiles (see ../components/network-profile-options.ts). */
  networkProfileOptions: readonly (SelectOption | SelectOptionGroup)[];
};

export type KindFieldsProps<K extends ExperimentKind> = {
  draft: Drafts[K];
  /** The kind's axes and exclusions (a field may depend on an axis' values). */
  matrix: MatrixDraft;
  errors: FieldErrorMap;
  /** The change handler of one of the kind's text fields. */
  onChange: (field: TextFieldOf<K>) => FieldChange;
  /** Any other change of the kind's draft (a list of checkboxes, say). */
  setDraft: (update: (draft: Drafts[K]) => Drafts[K]) => void;
  clearError: (name: FieldName) => void;
  /** Turns a field into an axis of the design. */
  vary: VaryControls;
  options: KindFormOptions;
};

/** A kind's part of the new-experiment form. */
export type ExperimentKindForm<K extends ExperimentKind> = {
  /** The kind's fields, below the form's name and kind. */
  Fields: ComponentType<KindFieldsProps<K>>;
};
