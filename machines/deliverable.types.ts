import { z } from 'zod';
import { nonEmptyString } from './schema-primitives.js';
import type { LifecycleContext } from './lifecycle-context.js';
import {
  directiveReceivedEvent,
  failEvent,
  missionAssignedEvent,
  pauseEvent,
  questionReceivedEvent,
  resumeEvent,
  timestamped,
} from './lifecycle-events.js';

/** States of a deliverable team, exactly as spec §3.1. */
export type DeliverableState = 'preparing' | 'scanning' | 'distilling' | 'aggregating' | 'complete' | 'failed' | 'paused';

/** The states a team does work in: the ones it can be paused in and resumed to. */
export const DELIVERABLE_WORK_STATES = ['preparing', 'scanning', 'distilling', 'aggregating'] as const;
export type DeliverableWorkState = (typeof DELIVERABLE_WORK_STATES)[number];

/**
 * Events of the deliverable lifecycle. Progress events report that the work of the current state is done,
 * with its result; see the README "Lifecycles" table for what each one does.
 */
export const deliverableEventSchema = z.discriminatedUnion('type', [
  /** preparing → scanning: the document structure is planned and its information sources identified. */
  z.strictObject({ type: z.literal('PLAN_READY'), sources: z.array(nonEmptyString), ...timestamped }),
  /** scanning → distilling; `filesRead` 0 means the required information cannot be found → failed. */
  z.strictObject({ type: z.literal('SCAN_COMPLETE'), filesRead: z.int().nonnegative(), ...timestamped }),
  /** distilling → aggregating: patterns identified, examples selected. */
  z.strictObject({ type: z.literal('INSIGHTS_READY'), insights: z.array(nonEmptyString).optional(), ...timestamped }),
  /** aggregating → complete: the deliverable file is saved; an empty document (bytes 0) is refused. */
  z.strictObject({ type: z.literal('DOCUMENT_WRITTEN'), path: nonEmptyString, bytes: z.int().nonnegative(), ...timestamped }),
  failEvent,
  pauseEvent,
  resumeEvent,
  missionAssignedEvent,
  directiveReceivedEvent,
  questionReceivedEvent,
]);
export type DeliverableEvent = z.infer<typeof deliverableEventSchema>;

export interface DeliverableContext extends LifecycleContext<DeliverableState, DeliverableWorkState> {
  /** Files and directories the plan will study. */
  sources: string[];
  filesRead: number | null;
  insights: string[];
  document: { path: string; bytes: number } | null;
}
