import { assertEvent, assign, setup } from 'xstate';
import { initialLifecycleContext, type LifecycleInput } from './lifecycle-context.js';
import { lifecycleActions, lifecycleGuards } from './lifecycle-setup.js';
import {
  DELIVERABLE_WORK_STATES,
  type DeliverableContext,
  type DeliverableEvent,
  type DeliverableState,
  type DeliverableWorkState,
} from './deliverable.types.js';
import { whilePaused, whileWorking } from './lifecycle-transitions.js';
import { onFirstUse } from './on-first-use.js';

/**
 * The deliverable team lifecycle (docs/design/spec.md §3.1): a team studies the codebase read-only and writes a Markdown
 * deliverable. Pure definition — actions and guards by name, no I/O, no `invoke`, no `after` — so
 * @xstate/graph can walk it and persisted snapshots restore; effects (signals, files) live in `src/`.
 */
export const DELIVERABLE_MACHINE_ID = 'deliverable';
/** Stored beside persisted snapshots; bump it when a change would make old snapshots mean something else. */
export const DELIVERABLE_MACHINE_VERSION = 1;

/** The spec's failure condition "required information cannot be found", reported as a scan of no files. */
export const NOTHING_FOUND_REASON = 'required information cannot be found: the scan read no files';

/** The machine, built on first use (on-first-use.ts). */
export const getDeliverableMachine = onFirstUse(() =>
  setup({
    types: {
      context: {} as DeliverableContext,
      events: {} as DeliverableEvent,
      input: {} as LifecycleInput,
    },
    actions: {
      ...lifecycleActions<DeliverableContext, DeliverableEvent>(),
      recordPlan: assign(({ event }) => {
        assertEvent(event, 'PLAN_READY');
        return { sources: event.sources };
      }),
      recordScan: assign(({ event }) => {
        assertEvent(event, 'SCAN_COMPLETE');
        return { filesRead: event.filesRead };
      }),
      recordNothingFound: assign({ filesRead: 0, failure: { reason: NOTHING_FOUND_REASON, state: 'scanning' } }),
      recordInsights: assign(({ event }) => {
        assertEvent(event, 'INSIGHTS_READY');
        return { insights: event.insights ?? [] };
      }),
      recordDocument: assign(({ event }) => {
        assertEvent(event, 'DOCUMENT_WRITTEN');
        return { document: { path: event.path, bytes: event.bytes } };
      }),
    },
    guards: {
      ...lifecycleGuards<DeliverableContext, DeliverableEvent>(),
      scanFoundNothing: ({ event }) => event.type === 'SCAN_COMPLETE' && event.filesRead === 0,
      documentHasContent: ({ event }) => event.type === 'DOCUMENT_WRITTEN' && event.bytes > 0,
    },
  }).createMachine({
    id: DELIVERABLE_MACHINE_ID,
    context: () => ({
      ...initialLifecycleContext<DeliverableState, DeliverableWorkState>(),
      sources: [],
      filesRead: null,
      insights: [],
      document: null,
    }),
    initial: 'preparing',
    states: {
      preparing: {
        description: 'Reading the mission, planning the document structure',
        entry: { type: 'recordEntry', params: { state: 'preparing' } },
        on: {
          MISSION_ASSIGNED: { guard: 'hasNoMission', actions: 'recordMission' },
          PLAN_READY: { guard: 'hasMission', target: 'scanning', actions: 'recordPlan' },
          ...whileWorking('preparing'),
        },
      },
      scanning: {
        description: 'Gathering information from the codebase',
        entry: { type: 'recordEntry', params: { state: 'scanning' } },
        on: {
          SCAN_COMPLETE: [
            { guard: 'scanFoundNothing', target: 'failed', actions: 'recordNothingFound' },
            { target: 'distilling', actions: 'recordScan' },
          ],
          ...whileWorking('scanning'),
        },
      },
      distilling: {
        description: 'Processing findings, identifying key insights',
        entry: { type: 'recordEntry', params: { state: 'distilling' } },
        on: {
          INSIGHTS_READY: { target: 'aggregating', actions: 'recordInsights' },
          ...whileWorking('distilling'),
        },
      },
      aggregating: {
        description: 'Writing and formatting the deliverable',
        entry: { type: 'recordEntry', params: { state: 'aggregating' } },
        on: {
          DOCUMENT_WRITTEN: { guard: 'documentHasContent', target: 'complete', actions: 'recordDocument' },
          ...whileWorking('aggregating'),
        },
      },
      paused: {
        description: 'Manually paused, RESUME returns to the state it was paused in',
        entry: { type: 'recordEntry', params: { state: 'paused' } },
        exit: 'forgetPause',
        on: whilePaused(DELIVERABLE_WORK_STATES),
      },
      complete: {
        description: 'Document finished',
        type: 'final',
        entry: { type: 'recordEntry', params: { state: 'complete' } },
      },
      failed: {
        description: 'Error occurred (context.failure says why and where)',
        type: 'final',
        entry: { type: 'recordEntry', params: { state: 'failed' } },
      },
    },
  }),
);

export type DeliverableMachine = ReturnType<typeof getDeliverableMachine>;
