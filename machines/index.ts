export {
  TEAM_STATUS_MACHINE_ID,
  TEAM_STATUS_MACHINE_VERSION,
  teamStatusEventSchema,
  getTeamStatusMachine,
  type TeamStatusEvent,
  type TeamStatusMachine,
} from './team-status.machine.js';
export {
  DELIVERABLE_MACHINE_ID,
  DELIVERABLE_MACHINE_VERSION,
  NOTHING_FOUND_REASON,
  getDeliverableMachine,
  type DeliverableMachine,
} from './deliverable.machine.js';
export {
  DELIVERABLE_WORK_STATES,
  deliverableEventSchema,
  type DeliverableContext,
  type DeliverableEvent,
  type DeliverableState,
  type DeliverableWorkState,
} from './deliverable.types.js';
export { CODING_MACHINE_ID, CODING_MACHINE_VERSION, getCodingMachine, type CodingMachine } from './coding.machine.js';
export {
  CODING_WORK_STATES,
  codingEventSchema,
  type CodingContext,
  type CodingEvent,
  type CodingState,
  type CodingWorkState,
} from './coding.types.js';
export {
  CONSULTANT_MACHINE_ID,
  CONSULTANT_MACHINE_VERSION,
  getConsultantMachine,
  type ConsultantMachine,
} from './consultant.machine.js';
export {
  CONSULTANT_WORK_STATES,
  consultantEventSchema,
  type ConsultantContext,
  type ConsultantEvent,
  type ConsultantState,
  type ConsultantWorkState,
  type Question,
} from './consultant.types.js';
export type { Failure, LifecycleContext, LifecycleInput, Mission, SignalSeen } from './lifecycle-context.js';
export type { AnyLifecycleContext, LifecycleSnapshot } from './lifecycle-machine.js';
export { eventDocs, documentedEvents, type EventDoc } from './event-docs.js';
export {
  LAUNCH_MACHINE_ID,
  LAUNCH_OUTCOMES,
  launchEventSchema,
  launchMachine,
  type LaunchEvent,
  type LaunchMachineContext,
  type LaunchOutcome,
  type LaunchPhase,
} from './launch.machine.js';
export {
  acceptedEventTypes,
  checkEvent,
  machineEntry,
  snapshotOfMachine,
  teamStatusEntry,
  type EventCheck,
  type MachineEntry,
} from './catalog.js';

// Each machine, built as the library loads: its users import the machines themselves. fed's own commands
// build only the ones they use (on-first-use.ts).
import { getCodingMachine } from './coding.machine.js';
import { getConsultantMachine } from './consultant.machine.js';
import { getDeliverableMachine } from './deliverable.machine.js';
import { getTeamStatusMachine } from './team-status.machine.js';

export const teamStatusMachine = getTeamStatusMachine();
export const deliverableMachine = getDeliverableMachine();
export const codingMachine = getCodingMachine();
export const consultantMachine = getConsultantMachine();
