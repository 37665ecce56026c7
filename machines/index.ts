export {
  TEAM_STATUS_MACHINE_ID,
  TEAM_STATUS_MACHINE_VERSION,
  teamStatusEventSchema,
  teamStatusMachine,
  type TeamStatusEvent,
} from './team-status.machine.js';
export { DELIVERABLE_MACHINE_ID, DELIVERABLE_MACHINE_VERSION, NOTHING_FOUND_REASON, deliverableMachine } from './deliverable.machine.js';
export {
  DELIVERABLE_WORK_STATES,
  deliverableEventSchema,
  type DeliverableContext,
  type DeliverableEvent,
  type DeliverableState,
  type DeliverableWorkState,
} from './deliverable.types.js';
export { CODING_MACHINE_ID, CODING_MACHINE_VERSION, codingMachine } from './coding.machine.js';
export {
  CODING_WORK_STATES,
  codingEventSchema,
  type CodingContext,
  type CodingEvent,
  type CodingState,
  type CodingWorkState,
} from './coding.types.js';
export type { Failure, LifecycleContext, LifecycleInput, Mission, SignalSeen } from './lifecycle-context.js';
export {
  acceptedEventTypes,
  checkEvent,
  codingEntry,
  deliverableEntry,
  lifecycleFor,
  lifecycleMachines,
  machineCatalog,
  teamStatusEntry,
  type EventCheck,
  type LifecycleArchetype,
  type MachineEntry,
} from './catalog.js';
