import type { ChangeEvent, ComponentType } from 'react';
import type * as z from 'zod';

import type { SelectOption, SelectOptionGroup } from '@/components/ui/form-field';
import type { Catalogue, Device, ExperimentKind } from '@/types/api';

import type { AxisParameter } from '../components/design-axes';
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
 * ./index.ts for the fields below the kind and for how the kind's draft starts, becomes its
 * part of a create-experiment input and is filled from a design. A kind's fields get its own
 * draft and matrix.
 */

export type FieldChange = (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => void;

/** What the form offers every kind: the catalogue and the choices it derives from it. */
export type KindFormOptions = {
  catalogue: Catalogue;
  /** The payload security select's choices: every mechanism, by family. */
  securityOptions: readonly SelectOptionGroup[];
  /** "None (no shaping)" and the network profiles (see ../components/network-profile-options.ts). */
  networkProfileOptions: readonly (SelectOption | SelectOptionGroup)[];
  /** The workspace's devices (a messaging design's target device is one of them). */
  devices: readonly Pick<Device, 'id' | 'name' | 'online'>[];
  /** The devices checked as the runs' devices. */
  deviceIds: readonly string[];
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

/** What the kind's conversions see of the form: its draft, matrix and parsed data sizes. */
export type KindDraftContext<K extends ExperimentKind> = {
  draft: Drafts[K];
  matrix: MatrixDraft;
  /** The sizes field parsed ([] for a kind without one, or while it is unreadable). */
  sizes: readonly number[];
};

/** A kind's draft: its defaults, and how it becomes a request and comes back from a design. */
export type KindValues<K extends ExperimentKind> = {
  /** The kind's fields before anyone edits them. */
  defaults: Drafts[K];
  /** The kind's request schema: its fields are those whose errors show beside the form's fields. */
  schema: z.ZodObject;
  /** The schema of each number parameter the kind can vary, to check each varied value. */
  numberSchemas: Partial<Record<AxisParameter, z.ZodType>>;
  /** The sizes field as typed, for a kind that has one. */
  sizesText?: (draft: Drafts[K]) => string;
  /** The kind's own fields of the create-experiment input, unchecked (the schema checks them). */
  toInput: (context: KindDraftContext<K>) => Record<string, unknown>;
  /** The kind's draft from a design (a preset, a clone): the design's values as the form holds them. */
  fromDesign: (design: Record<string, unknown>) => Drafts[K];
  /** The list a `split` axis of one of the kind's list fields runs one by one. */
  splitItems?: (parameter: AxisParameter, context: KindDraftContext<K>) => unknown[];
  /** The draft with a design's `split` axis items put back into their list field. */
  withSplitItems?: (draft: Drafts[K], parameter: AxisParameter, items: readonly string[]) => Drafts[K];
  /** Whether a parameter's field is shown (a hidden field's axis is left out); all are by default. */
  isShown?: (parameter: AxisParameter, context: KindDraftContext<K>) => boolean;
};

/** A kind's part of the new-experiment form. */
export type ExperimentKindForm<K extends ExperimentKind> = {
  /** The kind's fields, below the form's name and kind. */
  Fields: ComponentType<KindFieldsProps<K>>;
  values: KindValues<K>;
};
