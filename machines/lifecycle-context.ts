import type { FailEvent, MissionAssignedEvent, SignalEvent } from './lifecycle-events.js';

/**
 * The context every team lifecycle keeps, and the pure functions its actions are built from. Every
 * lifecycle machine uses them through lifecycle-setup.ts, so the bookkeeping is written once.
 */
export interface Mission {
  signalId: string;
  subject: string;
  body: string;
}

export interface SignalSeen {
  signalId: string;
  subject: string;
  at?: string;
}

export interface Failure {
  reason: string;
  /** The state the team was in when it failed (`paused` included). */
  state: string;
}

export interface LifecycleContext<TState extends string, TWorkState extends TState> {
  mission: Mission | null;
  /**
   * The state a paused team returns to on RESUME; null unless paused. Kept in context rather than in a
   * history state so persisted snapshots and @xstate/graph paths say exactly where the team was.
   */
  pausedFrom: TWorkState | null;
  failure: Failure | null;
  lastDirective: SignalSeen | null;
  lastQuestion: SignalSeen | null;
  /** When each state was last entered (ISO time), for states whose entering event carried `at`. */
  enteredAt: Partial<Record<TState, string>>;
}

/**
 * Machine input, optional: `at` is when the lifecycle started, i.e. when its initial state was entered.
 * `void` (not `undefined`, which xstate's `setup` inference drops) is what lets `createActor(machine)`
 * be called without options.
 */
export type LifecycleInput = { at?: string } | void;

export function initialLifecycleContext<TState extends string, TWorkState extends TState>(): LifecycleContext<
  TState,
  TWorkState
> {
  return { mission: null, pausedFrom: null, failure: null, lastDirective: null, lastQuestion: null, enteredAt: {} };
}

/**
 * When an event happened, if its sender stamped it. The start event (`xstate.init`) carries the time in
 * the machine input instead.
 */
export function eventTime(event: object): string | undefined {
  if ('at' in event && typeof event.at === 'string') return event.at;
  if ('input' in event && event.input && typeof event.input === 'object') return eventTime(event.input);
  return undefined;
}

/** `enteredAt` after entering `state`; an unstamped entry drops the old time instead of leaving it stale. */
export function stampEntry<TState extends string>(
  enteredAt: Partial<Record<TState, string>>,
  state: TState,
  event: object,
): Partial<Record<TState, string>> {
  const { [state]: _previous, ...others } = enteredAt;
  const at = eventTime(event);
  return (at === undefined ? others : { ...others, [state]: at }) as Partial<Record<TState, string>>;
}

export function missionOf(event: MissionAssignedEvent): Mission {
  return { signalId: event.signalId, subject: event.subject, body: event.body };
}

/** What a lifecycle keeps of a signal it saw (an event carrying `signalId`, `subject` and maybe `at`). */
export function signalSeen(event: Pick<SignalEvent, 'signalId' | 'subject' | 'at'>): SignalSeen {
  return event.at === undefined
    ? { signalId: event.signalId, subject: event.subject }
    : { signalId: event.signalId, subject: event.subject, at: event.at };
}

export function failureOf(event: FailEvent, state: string): Failure {
  return { reason: event.reason, state };
}
