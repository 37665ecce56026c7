import { z } from 'zod';
import { nonEmptyString } from './schema-primitives.js';
import { eventDocs, NEEDS_MISSION } from './event-docs.js';
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

/** States of a deliverable team, exactly as docs/design/spec.md §3.1. */
export type DeliverableState =
  'preparing' | 'scanning' | 'distilling' | 'aggregating' | 'complete' | 'failed' | 'paused';

/** The states a team does work in: the ones it can be paused in and resumed to. */
export const DELIVERABLE_WORK_STATES = ['preparing', 'scanning', 'distilling', 'aggregating'] as const;
export type DeliverableWorkState = (typeof DELIVERABLE_WORK_STATES)[number];

/**
 * Events of the deliverable lifecycle. Progress events report that the work of the current state is done,
 * with its result; each says what it does in its `eventDocs` entry.
 */
export const deliverableEventSchema = z.discriminatedUnion('type', [
  z
    .strictObject({ type: z.literal('PLAN_READY'), sources: z.array(nonEmptyString), ...timestamped })
    .register(eventDocs, {
      summary: 'preparing → scanning: mission read, document structure planned, information sources identified',
      needs: NEEDS_MISSION,
      sentBy: 'agent',
      example: { sources: ['src', 'docs'] },
    }),
  z
    .strictObject({ type: z.literal('SCAN_COMPLETE'), filesRead: z.int().nonnegative(), ...timestamped })
    .register(eventDocs, {
      summary:
        'scanning → distilling: relevant files read, findings logged (0 files means the information cannot be found and fails the team)',
      sentBy: 'agent',
      example: { filesRead: 42 },
    }),
  z
    .strictObject({ type: z.literal('INSIGHTS_READY'), insights: z.array(nonEmptyString).optional(), ...timestamped })
    .register(eventDocs, {
      summary: 'distilling → aggregating: patterns identified, examples selected',
      sentBy: 'agent',
      example: { insights: ['...'] },
    }),
  z
    .strictObject({
      type: z.literal('DOCUMENT_WRITTEN'),
      path: nonEmptyString,
      bytes: z.int().nonnegative(),
      ...timestamped,
    })
    .register(eventDocs, {
      summary:
        'aggregating → complete: the deliverable is written (it must pass fed deliverable check; an empty one is refused)',
      needs: 'bytes must be > 0',
      sentBy: 'agent',
      example: { path: '<deliverable>', bytes: 1234 },
    }),
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
