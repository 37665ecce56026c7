import type { AnyStateNode, AnyTransitionDefinition } from 'xstate';
import type { MachineEntry } from '../../../machines/catalog.js';

/**
 * A machine definition as plain data, read off the machine's state nodes (never written by hand), so
 * every diagram format says the same thing and stays true to `machines/`.
 */
/** Said by every generated file, so nobody edits one by hand. */
export const GENERATED_NOTE = 'Generated from machines/ by fed machines export (npm run diagrams), do not edit.';

/** The event name diagrams give an eventless transition. */
export const ALWAYS = 'always';

export interface NamedRef {
  type: string;
  params?: Record<string, unknown>;
}

export interface TransitionDescription {
  event: string;
  /** null: the event is handled without leaving the state (it only records something). */
  target: string | null;
  guard: NamedRef | null;
  actions: NamedRef[];
}

export interface StateDescription {
  key: string;
  final: boolean;
  description: string | null;
  transitions: TransitionDescription[];
}

export interface MachineDescription {
  id: string;
  version: number;
  initial: string;
  states: StateDescription[];
}

export function describeMachine(entry: MachineEntry): MachineDescription {
  const root = entry.machine.root;
  const initial = root.initial?.target[0]?.key;
  if (!initial) throw new Error(`machine "${entry.id}" has no initial state`);
  return {
    id: entry.id,
    version: entry.version,
    initial,
    states: Object.values(root.states).map((node) => describeState(entry.id, node)),
  };
}

function describeState(machineId: string, node: AnyStateNode): StateDescription {
  // fed's lifecycles are flat; a nested machine needs composite-state rendering before it can be drawn.
  if (Object.keys(node.states).length > 0)
    throw new Error(`machine "${machineId}": nested states (in "${node.key}") cannot be exported yet`);
  return {
    key: node.key,
    final: node.type === 'final',
    description: node.description ?? null,
    // Eventless (`always`) transitions are taken as soon as their guard holds, e.g. a queued question.
    transitions: [...[...node.transitions.values()].flat(), ...(node.always ?? [])].map(describeTransition),
  };
}

function describeTransition(transition: AnyTransitionDefinition): TransitionDescription {
  return {
    event: transition.eventType || ALWAYS,
    target: transition.target?.[0]?.key ?? null,
    guard: transition.guard === undefined ? null : namedRef(transition.guard),
    actions: transition.actions.map(namedRef),
  };
}

/** Our machines refer to actions and guards by name (optionally with params); anything else is "inline". */
function namedRef(ref: unknown): NamedRef {
  if (typeof ref === 'string') return { type: ref };
  if (ref && typeof ref === 'object' && 'type' in ref && typeof ref.type === 'string') {
    const params =
      'params' in ref && ref.params && typeof ref.params === 'object'
        ? (ref.params as Record<string, unknown>)
        : undefined;
    return params ? { type: ref.type, params } : { type: ref.type };
  }
  return { type: 'inline' };
}

/** `EVENT [guard]` or `EVENT [guard(param)]`, the label every format puts on a transition. */
export function transitionLabel(transition: TransitionDescription): string {
  if (!transition.guard) return transition.event;
  const params = Object.values(transition.guard.params ?? {}).map(String);
  return `${transition.event} [${transition.guard.type}${params.length ? `(${params.join(', ')})` : ''}]`;
}

/** The events a state handles without leaving it, as one label (`records X, Y`), or null if none. */
export function recordsLabel(state: StateDescription): string | null {
  const staying = state.transitions.filter((t) => t.target === null);
  return staying.length ? `records ${staying.map(transitionLabel).join(', ')}` : null;
}
