// Named aliases for the generated OpenAPI types. When the backend schema is
// regenerated and a component is renamed, fix the alias here, in one place.
import type { components } from './api.gen';

type Schemas = components['schemas'];

/** How a messaging run measures delay: round trip, or one way (controller to device). */
export type Measurement = Schemas['MeasurementEnum'];

export type User = Schemas['User'];
export type Workspace = Schemas['Workspace'];
/** A member of the current workspace (the id is the membership's, for removing it). */
export type Member = Schemas['Member'];
export type MemberRole = Schemas['Member']['role'];
export type Invitation = Schemas['Invitation'];
/** A new invitation: its token and link are shown once. */
export type InvitationIssued = Schemas['InvitationIssued'];
export type InvitationPreview = Schemas['InvitationPreview'];
export type InvitationAcceptInput = Schemas['InvitationAcceptInput'];
/** One of the user's workspaces; `current` is the one they work in. */
export type WorkspaceMembership = Schemas['WorkspaceMembership'];
export type ApiToken = Schemas['ApiToken'];
/** A new API token: its key is shown once. */
export type ApiTokenIssued = Schemas['ApiTokenIssued'];
export type PasswordChangeInput = Schemas['PasswordChangeInput'];
export type LoginInput = Schemas['LoginInput'];
export type CsrfToken = Schemas['CsrfToken'];
export type Device = Schemas['Device'];
/** A device's latest health check (Device.health): broker round trip, clock, crypto, network. */
export type DeviceHealth = Schemas['DeviceHealth'];
export type HealthCheck = Schemas['HealthCheck'];
export type EnrollmentToken = Schemas['EnrollmentToken'];
export type Catalogue = Schemas['Catalogue'];
export type MechanismInfo = Schemas['MechanismInfo'];
export type Choice = Schemas['Choice'];
export type ExperimentKind = Schemas['ExperimentKindEnum'];
/**
 * Any catalogue mechanism, "none" included: what a messaging experiment secures its payload
 * with, and what a throughput experiment compares (with "none" as its baseline).
 */
export type MechanismName = Schemas['MechanismEnum'];
/** A mechanism a cipher benchmark can time: every catalogue mechanism except "none". */
export type BenchMechanismName = Exclude<MechanismName, 'none'>;
export type MechanismKind = Schemas['MechanismKindEnum'];
/** encrypt/decrypt and sign/verify (cipher benchmark), secure and send (throughput). */
export type BenchOperation = Schemas['BenchOperationEnum'];
export type ExperimentInput = Schemas['ExperimentInput'];
export type Experiment = Schemas['Experiment'];
/** A run as an experiment lists it: status, matrix position and times. */
export type RunBrief = Schemas['RunBrief'];
export type Run = Schemas['Run'];
/** Why a queued run has not started (Run.waiting_for): busy devices, its experiment, or no worker. */
export type RunWaitingFor = Schemas['RunWaitingFor'];
export type RunStatus = Schemas['RunStatusEnum'];
/** One status change of a run, with its time. */
export type RunTransition = Schemas['RunTransition'];
/**
 * GET /api/presets/: a paper's design, ready to fill the new-experiment form. `design` is
 * an ExperimentInput without device_ids (typed as an object by the schema).
 */
export type Preset = Schemas['Preset'];
/** POST /api/experiments/plan/: what a design expands to, before anything is created. */
export type DesignPlan = Schemas['DesignPlan'];
export type DesignPlanInput = Schemas['DesignPlanInput'];
export type PlannedRun = Schemas['PlannedRun'];
/**
 * One axis as the API answers it (Experiment.axes, canonical): a name and its values, each
 * an object of the parameters it sets (`{"qos": 0}`, or `{"protocol": "mqtt", "qos": 0}` for
 * parameters that change together). The schema types Experiment.axes as unknown, so
 * features/experiments parses it (see design-axes.ts).
 */
export type DesignAxis = { name: string; values: Record<string, unknown>[] };
/** A combination not to run: axis values (`{"protocol": "srup", "security": "none"}`). */
export type DesignExclusion = Record<string, unknown>;

/** One device's part of a run; `clock` (one-way runs) is read by features/runs/components/clock-offset-data.ts. */
export type RunDevice = Schemas['RunDevice'];
/** What a messaging run cost the agent on one device (docs/control-plane.md §6, "Run resources"). */
export type RunDeviceResources = Schemas['RunDeviceResources'];
export type RunSummaryRow = Schemas['RunSummaryRow'];
export type BenchSummaryRow = Schemas['BenchSummaryRow'];
export type ErrorEnvelope = Schemas['ErrorEnvelope'];

// --- results of messaging runs (docs/results.md) ---
export type RunStatistics = Schemas['RunStatistics'];
export type RoundTripStatistics = Schemas['RoundTripStatistics'];
export type MechanismStatistics = Schemas['MechanismStatistics'];
export type RunRepeats = Schemas['RunRepeats'];
export type RunDistribution = Schemas['RunDistribution'];
export type DeviceDistribution = Schemas['DeviceDistribution'];
export type BoxStatistics = Schemas['BoxStatistics'];
export type RoundTripSeries = Schemas['RoundTripSeries'];
export type RunMethods = Schemas['RunMethods'];
export type RunComparison = Schemas['RunComparison'];
export type ComparedRun = Schemas['ComparedRun'];
export type PairComparison = Schemas['PairComparison'];
export type TreatmentDifference = Schemas['TreatmentDifference'];
export type RunSizes = Schemas['RunSizes'];
/** One message's breakdown; an interleaved run's RunSizes lists one per mechanism. */
export type SizeBreakdown = Schemas['SizeBreakdown'];
export type SizeComponent = Schemas['SizeComponent'];

// --- power traces (docs/power-traces.md) ---
export type PowerTrace = Schemas['PowerTrace'];
export type PowerTraceKind = Schemas['PowerTraceKindEnum'];
export type PowerTraceStatus = Schemas['PowerTraceStatusEnum'];
/** How a trace is lined up with its run; null when it has no run window. */
export type PowerAlignment = Schemas['AlignmentEnum'];
export type PowerDetection = Schemas['PowerDetection'];
export type PowerDetectionConfidence = Schemas['ConfidenceEnum'];
export type PowerFormatChoice = Schemas['PowerFormatChoice'];
/** The column mapping: sent to parse/, and returned as a detection's suggestion and a trace's spec. */
export type PowerParseSpec = Schemas['PowerParseSpec'];
export type PowerTimeSpec = Schemas['PowerTimeSpec'];
export type PowerTimeUnit = PowerTimeSpec['unit'];
export type PowerChannelSpec = Schemas['PowerChannelSpec'];
export type PowerTraceError = Schemas['PowerTraceError'];
export type PowerWindow = Schemas['PowerWindow'];
export type PowerTraceUpdate = Schemas['PatchedPowerTraceUpdate'];
export type PowerPlot = Schemas['PowerPlot'];
export type PowerFigures = Schemas['PowerFigures'];
export type PowerBaseline = Schemas['PowerBaseline'];
export type PowerReference = Schemas['PowerReference'];
export type PowerProjection = Schemas['PowerProjection'];
export type PowerProjectionSeries = Schemas['PowerProjectionSeries'];
/** A figure computed right but barely measured, or a run and trace whose clocks disagree. */
export type PowerWarning = Schemas['PowerWarning'];
export type PowerBatteryFigures = Schemas['PowerBatteryFigures'];
export type PowerBatteryReading = Schemas['PowerBatteryReading'];
export type PowerBatteryReadingInput = Schemas['PowerBatteryReadingInput'];

// --- shared links (docs/sharing.md) ---
export type Share = Schemas['Share'];
export type ShareKind = Schemas['ShareKindEnum'];
export type ShareState = Schemas['ShareStateEnum'];
export type ShareInput = Schemas['ShareInput'];
export type ShareUpdate = Schemas['PatchedShareUpdate'];
export type SharedContent = Omit<Schemas['SharedContent'], 'experiment' | 'runs'> & {
  experiment: Experiment | null;
  runs: Run[];
};

// --- network profiles (docs/network-profiles.md) ---
export type NetworkProfile = Schemas['NetworkProfile'];
export type NetworkProfileDetail = Schemas['NetworkProfileDetail'];
export type NetworkProfileKind = Schemas['NetworkProfileKindEnum'];
export type NetworkProfileInput = Schemas['NetworkProfileInput'];
export type NetworkProfileUpdate = Schemas['PatchedNetworkProfileUpdate'];
export type NetworkProfileCopy = Schemas['NetworkProfileCopy'];
/** What one direction's delay distribution delivers, with its 40-bin histogram. */
export type DelayFigures = Schemas['DelayFigures'];
/** `both`, or `egress` (device → platform) / `ingress` (platform → device). */
export type LinkDirection = Schemas['DirectionEnum'];
/** GET /api/experiments/{id}/results/: the cells of a matrix, their overheads and methods. */
export type ExperimentResults = Schemas['ExperimentResults'];
export type ExperimentCell = Schemas['ExperimentCell'];
export type ExperimentCellMetric = Schemas['ExperimentCellMetric'];
export type ExperimentOverhead = Schemas['ExperimentOverhead'];
