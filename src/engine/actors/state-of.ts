import type { AnyMachineSnapshot } from 'xstate';

/** The state name of a lifecycle snapshot (lifecycle machines are flat). */
export function stateOf(snapshot: AnyMachineSnapshot): string {
  return typeof snapshot.value === 'string' ? snapshot.value : JSON.stringify(snapshot.value);
}
