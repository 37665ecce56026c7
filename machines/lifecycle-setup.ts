import { assign, type EventObject } from 'xstate';
import { failureOf, missionOf, signalSeen, stampEntry, type LifecycleContext } from './lifecycle-context.js';
import type { FailEvent, MissionAssignedEvent, SignalEvent } from './lifecycle-events.js';

/**
 * The actions and guards every team lifecycle shares — entry times, the mission, FAIL, PAUSE/RESUME with
 * `pausedFrom`, recorded directives and questions — written once. Each machine spreads them into its
 * `setup` next to its own, and `whileWorking`/`whilePaused` (lifecycle-transitions.ts) refer to them by name.
 *
 * Generic over the machine's context and event types so each machine keeps its exact types; the events are
 * narrowed by `type`, which every lifecycle's event union shares for these events.
 */
type Lifecycle = LifecycleContext<string, string>;

export function lifecycleActions<TContext extends Lifecycle, TEvent extends EventObject>() {
  type Params<T> = T;
  const update = <TParams>(
    fn: (args: { context: TContext; event: TEvent }, params: Params<TParams>) => Partial<Lifecycle>,
  ) => assign<TContext, TEvent, TParams, TEvent, never>((args, params) => fn(args, params) as Partial<TContext>);
  return {
    recordEntry: update<{ state: string }>(({ context, event }, params) => ({
      enteredAt: stampEntry(context.enteredAt, params.state, event),
    })),
    recordMission: update<undefined>(({ event }) => ({
      mission: missionOf(narrow<MissionAssignedEvent>(event, 'MISSION_ASSIGNED')),
    })),
    recordFailure: update<{ state: string }>(({ event }, params) => ({
      failure: failureOf(narrow<FailEvent>(event, 'FAIL'), params.state),
    })),
    recordPause: update<{ state: string }>((_, params) => ({ pausedFrom: params.state })),
    forgetPause: update<undefined>(() => ({ pausedFrom: null })),
    recordDirective: update<undefined>(({ event }) => ({
      lastDirective: signalSeen(narrow<SignalEvent>(event, 'DIRECTIVE_RECEIVED')),
    })),
    recordQuestion: update<undefined>(({ event }) => ({
      lastQuestion: signalSeen(narrow<SignalEvent>(event, 'QUESTION_RECEIVED')),
    })),
  };
}

export function lifecycleGuards<TContext extends Lifecycle, TEvent extends EventObject>() {
  return {
    hasMission: ({ context }: { context: TContext; event: TEvent }) => context.mission !== null,
    hasNoMission: ({ context }: { context: TContext; event: TEvent }) => context.mission === null,
    wasPausedIn: ({ context }: { context: TContext; event: TEvent }, params: { state: string }) =>
      context.pausedFrom === params.state,
  };
}

/** The event as the one type an action is wired to; a miswiring is a programming error, thrown loudly. */
function narrow<T extends EventObject>(event: EventObject, type: T['type']): T {
  if (event.type !== type) throw new Error(`expected a ${type} event, got ${event.type}`);
  return event as T;
}
