/**
 * The fed library API (`import … from 'fed'`): what a program that drives a federation needs, and no more.
 * Public are the ports' types, `openFederation` (every operation takes the `Federation` it returns), the
 * engine operations and the apps a user runs, the lifecycle machines, the errors, and the schemas of the
 * files fed keeps on disk. Everything else (the file-signal-v1 adapter, infra, the CLI) is internal: it
 * may change in any release. test/unit/architecture/library-api.test.ts caps the count of names: a name
 * made public is a promise kept across releases. What fed's own tests need beyond it is in the testing
 * entry (src/testing.ts, `fed/testing`), which promises nothing.
 */

// Ports: the storage interfaces every backend implements.
export type * from './ports/index.js';

// The federation context and the backends it opens.
export { openFederation, type Federation } from './engine/context.js';
export { closeOpenBackends } from './adapters/network-backends.js';

// Signals: send, list, show, acknowledge, watch, archive.
export { sendSignal } from './engine/messaging/send-signal.js';
export { listSignals } from './engine/messaging/list-signals.js';
export { showSignal } from './engine/delivery/show-signal.js';
export { acknowledgeSignal, acknowledgeAll } from './engine/messaging/acknowledge-signals.js';
export { watchSignals } from './engine/messaging/watch-signals.js';
export { archiveSignals } from './engine/delivery/archive-signals.js';

// Teams: onboard, remove, change status, update the registry.
export { onboardTeam } from './engine/registry/onboard.js';
export { removeTeam } from './engine/registry/remove-team.js';
export { setTeamStatus } from './engine/actors/team-status-command.js';
export { updateRegistry } from './engine/registry/update-registry.js';

// Lifecycles: apply events, run the actors, view a team's lifecycle.
export { applyLifecycleInputs } from './engine/actors/team-lifecycle.js';
export { runActors } from './engine/actors/run-actors.js';
export { viewLifecycle } from './engine/actors/lifecycle-view.js';

// Coding teams: review and merge.
export { decideReview, reviewTeam } from './engine/archetypes/coding/review.js';
export { mergeTeam } from './engine/archetypes/coding/merge.js';

// The federation journal and deliverable checks.
export { readFederationJournal } from './engine/federation/federation-journal.js';
export { checkDeliverable } from './engine/deliverable/check-deliverable.js';

// Apps: what the fed commands run.
export { initFederation } from './apps/init/init-federation.js';
export { launchTeam } from './apps/launch/launch-team.js';
export { runFederation } from './apps/run/run-federation.js';
export { runMonitorCycle } from './apps/monitor/monitor-cycle.js';
export { proposePlan, applyPlan } from './apps/plan/plan.js';
export { buildFederationReport, writeFederationReport } from './apps/plan/federation-report.js';
export { runDoctor } from './apps/doctor/doctor.js';
export type { FederationHooks } from './engine/hooks/federation-hooks.js';

// The lifecycle machines (machines/index.ts).
export {
  TEAM_STATUS_MACHINE_ID,
  TEAM_STATUS_MACHINE_VERSION,
  teamStatusEventSchema,
  teamStatusMachine,
  type TeamStatusEvent,
  DELIVERABLE_MACHINE_ID,
  DELIVERABLE_MACHINE_VERSION,
  NOTHING_FOUND_REASON,
  deliverableMachine,
  DELIVERABLE_WORK_STATES,
  deliverableEventSchema,
  type DeliverableContext,
  type DeliverableEvent,
  type DeliverableState,
  type DeliverableWorkState,
  CODING_MACHINE_ID,
  CODING_MACHINE_VERSION,
  codingMachine,
  CODING_WORK_STATES,
  codingEventSchema,
  type CodingContext,
  type CodingEvent,
  type CodingState,
  type CodingWorkState,
  CONSULTANT_MACHINE_ID,
  CONSULTANT_MACHINE_VERSION,
  consultantMachine,
  CONSULTANT_WORK_STATES,
  consultantEventSchema,
  type ConsultantContext,
  type ConsultantEvent,
  type ConsultantState,
  type ConsultantWorkState,
  type Question,
  type Failure,
  type LifecycleContext,
  type LifecycleInput,
  type Mission,
  type SignalSeen,
  type AnyLifecycleContext,
  type LifecycleSnapshot,
  eventDocs,
  documentedEvents,
  type EventDoc,
  acceptedEventTypes,
  checkEvent,
  machineEntry,
  snapshotOfMachine,
  teamStatusEntry,
  type EventCheck,
  type MachineEntry,
} from '../machines/index.js';

// Errors: every one is a FedError with a stable code.
export {
  FedError,
  ConfigValidationError,
  CorruptFileError,
  InvalidInputError,
  RefusedError,
  UnknownTeamError,
  NotAFederationError,
  UnreadableFileError,
  FileSystemError,
  RegistryConflictError,
  LifecycleConflictError,
  BackendUnavailableError,
} from './core/errors.js';
export type { FedErrorCode } from './core/error-codes.js';

// On-disk schemas (zod) and the types they parse to.
export { signalMessageSchema, signalAckSchema, type SignalMessage, type SignalAck } from './core/schema/signal.js';
export { registrySchema, registryEntrySchema, type Registry, type RegistryEntry } from './core/schema/registry.js';
export { configSchema, type FederationConfig } from './core/schema/config.js';
export { envelopeSchema, type LifecycleEnvelope } from './core/schema/lifecycle-state.js';
export { deliveryFactSchemas, type DeliveryFacts } from './core/schema/delivery.js';
export { federationRecordSchema, type FederationRecord } from './core/schema/federation-journal.js';
export { learningEntrySchema, type LearningEntry } from './core/schema/learning-log.js';
export { deliverableSummarySchema, type DeliverableSummary } from './core/schema/deliverable-summary.js';
