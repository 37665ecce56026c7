import { initialTransition, transition } from 'xstate';
import { type LaunchEvent, launchMachine, type LaunchPhase } from 'fed/testing';

/**
 * The model side of the launch sequence (machines/launch.machine.ts): the edges it has, and a check that
 * what a real launch reported through `onPhase` is a walk of the machine — each event accepted where it
 * came, each phase the one the machine reaches.
 */
export type PhaseStep = { phase: LaunchPhase; event: LaunchEvent };

/** Every `<state> <event type>` edge of the launch machine. */
export function launchEdges(): string[] {
  return Object.entries(launchMachine.config.states ?? {}).flatMap(([state, node]) =>
    Object.keys(node.on ?? {}).map((type) => `${state} ${type}`),
  );
}

/** Replay the reported steps on the machine; returns the edges walked. Throws on a step the machine does not take there. */
export function walkOf(steps: readonly PhaseStep[]): string[] {
  let [snapshot] = initialTransition(launchMachine);
  return steps.map(({ phase, event }) => {
    const edge = `${snapshot.value} ${event.type}`;
    if (!snapshot.can(event)) throw new Error(`the launch machine does not take ${edge}`);
    [snapshot] = transition(launchMachine, snapshot, event);
    if (snapshot.value !== phase)
      throw new Error(`${edge} leads to ${snapshot.value}, but the launch reported ${phase}`);
    return edge;
  });
}
