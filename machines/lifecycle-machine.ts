import type { AnyMachineSnapshot } from 'xstate';
import type { LifecycleContext } from './lifecycle-context.js';

/**
 * The snapshot type for code that handles any team lifecycle: every lifecycle's context has the shared
 * part (mission, failure, pausedFrom, enteredAt…, lifecycle-context.ts) whatever else it keeps, so that
 * part is read typed, with no cast. Code that knows the archetype gets its machine's own snapshot type
 * (`SnapshotFrom<CodingMachine>`) through the archetype's descriptor (src/engine/archetypes).
 *
 * Spelled as xstate's `AnyMachineSnapshot` with the context replaced (per status variant): xstate's
 * machine and snapshot types are invariant in their context, so no `MachineSnapshot<LifecycleContext…>`
 * would accept the snapshot of a machine whose context has more.
 */
export type AnyLifecycleContext = LifecycleContext<string, string>;

export type LifecycleSnapshot = WithContext<AnyMachineSnapshot, AnyLifecycleContext>;

type WithContext<TSnapshot, TContext> = TSnapshot extends unknown
  ? Omit<TSnapshot, 'context'> & { context: TContext }
  : never;
