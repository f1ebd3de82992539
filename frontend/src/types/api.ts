// Named aliases for the generated OpenAPI types. When the backend schema is
// regenerated and a component is renamed, fix the alias here, in one place.
import type { components } from './api.gen';

type Schemas = components['schemas'];

export type User = Schemas['User'];
export type Workspace = Schemas['Workspace'];
export type LoginInput = Schemas['LoginInput'];
export type CsrfToken = Schemas['CsrfToken'];
export type Device = Schemas['Device'];
export type EnrollmentToken = Schemas['EnrollmentToken'];
export type Catalogue = Schemas['Catalogue'];
export type MechanismInfo = Schemas['MechanismInfo'];
export type Choice = Schemas['Choice'];
export type ExperimentKind = Schemas['KindEnum'];
/** Any catalogue mechanism, "none" included: what a messaging experiment secures its payload with. */
export type MechanismName = Schemas['SecurityEnum'];
/** A mechanism a cipher benchmark can time: every catalogue mechanism except "none". */
export type BenchMechanismName = Schemas['MechanismsEnum'];
export type ExperimentInput = Schemas['ExperimentInput'];
export type Experiment = Schemas['Experiment'];
export type ExperimentRunRef = Experiment['runs'][number];
export type Run = Schemas['Run'];
export type RunStatus = Run['status'];
export type RunDevice = Schemas['RunDevice'];
export type RunSummaryRow = Schemas['RunSummaryRow'];
export type BenchSummaryRow = Schemas['BenchSummaryRow'];
export type RunRtt = Schemas['RunRtt'];
export type RunRttDevice = RunRtt['devices'][number];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
