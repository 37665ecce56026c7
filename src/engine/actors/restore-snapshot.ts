import type { MachineEntry } from '../../../machines/catalog.js';
import type { LifecycleSnapshot } from '../../../machines/lifecycle-machine.js';
import { CorruptFileError, RefusedError } from '../../core/errors.js';
import { archetypeOfMachine } from '../archetypes/catalog.js';
import type { LifecycleEnvelope } from '../../core/schema/lifecycle-state.js';
import { zodProblemText } from '../../core/schema/problems.js';
import { findSnapshotMigration } from './snapshot-migrations.js';

/** A state file written for another machine version that no migration can bring up to date. */
export class SnapshotVersionError extends RefusedError {
  constructor(file: string, machineId: string, found: number, current: number) {
    super(
      'SNAPSHOT_VERSION',
      `${file} holds a ${machineId} snapshot of version ${found}, but this fed has version ${current} and no migration from ${found}; ` +
        `the file is kept as it is — run the fed version that wrote it, or move the file aside to start the lifecycle over`,
    );
  }
}

/** Bring an envelope to the machine's current version through registered migrations (or refuse). */
export function migrateEnvelope(envelope: LifecycleEnvelope, entry: MachineEntry, file: string): LifecycleEnvelope {
  if (envelope.machineId !== entry.id) {
    throw new RefusedError(
      'SNAPSHOT_MACHINE',
      `${file} holds a ${envelope.machineId} lifecycle, but the team's archetype uses ${entry.id}; the file is kept — move it aside to start over`,
    );
  }
  let current = envelope;
  while (current.machineVersion < entry.version) {
    const migrate = findSnapshotMigration(entry.id, current.machineVersion);
    if (!migrate) break;
    current = migrate(current);
  }
  if (current.machineVersion !== entry.version)
    throw new SnapshotVersionError(file, entry.id, envelope.machineVersion, entry.version);
  return current;
}

/**
 * Turn a persisted snapshot back into a machine snapshot, validated against the current definition first:
 * xstate throws on a state value the machine no longer has, and that must become a clear error that
 * names the file, never an uncaught exception. Its context has passed the archetype's context schema,
 * which every lifecycle's extends: the shared part is read typed (LifecycleSnapshot).
 */
export function restoreSnapshot(envelope: LifecycleEnvelope, entry: MachineEntry, file: string): LifecycleSnapshot {
  const migrated = migrateEnvelope(envelope, entry, file);
  const persisted = migrated.snapshot as { value?: unknown; context?: unknown; status?: unknown };
  try {
    if (persisted.value === undefined) throw new Error('it has no state value');
    // xstate errors and persisted error snapshots (an action that threw) are never resumed from.
    if (persisted.status === 'error') throw new Error('it is an error snapshot (an action failed when it was taken)');
    // The archetype's quick check passes a well-formed context; the schema judges the rest and says what is wrong.
    const archetype = archetypeOfMachine(entry.id);
    const context = archetype?.isWellFormedContext(persisted.context)
      ? undefined
      : archetype?.contextSchema.safeParse(persisted.context, { reportInput: true });
    if (context && !context.success) {
      throw new Error(`its context does not fit: ${zodProblemText(context.error, { prefix: 'context' })}`);
    }
    const snapshot = resolvedState(entry.machine, persisted.value, persisted.context);
    if (typeof persisted.status === 'string' && persisted.status !== snapshot.status) {
      throw new Error(`status "${persisted.status}" does not match state ${JSON.stringify(persisted.value)}`);
    }
    return snapshot;
  } catch (error) {
    throw new CorruptFileError(
      file,
      `its snapshot does not fit the ${entry.id} machine v${entry.version}: ${(error as Error).message}`,
    );
  }
}

/** Per machine, the snapshot of each state value restored so far, without its context (see resolvedState). */
const resolvedValues = new WeakMap<MachineEntry['machine'], Map<string, LifecycleSnapshot>>();

/**
 * `machine.resolveState` of a persisted value and context, the value resolved once per machine and value:
 * resolving walks the machine's state nodes (most of a monitoring cycle's restores over a thousand teams,
 * measured), and depends on the value alone. Each restore is a copy with its own context, children and
 * history, as resolveState makes them; what it shares with the others — the list of state nodes, the
 * value and the tags — xstate replaces on a transition and never changes in place (the list and the value
 * are frozen here, so that a change would throw rather than reach another team's snapshot; a Set, the
 * tags cannot be).
 */
function resolvedState(machine: MachineEntry['machine'], value: unknown, context: unknown): LifecycleSnapshot {
  let byValue = resolvedValues.get(machine);
  if (!byValue) resolvedValues.set(machine, (byValue = new Map()));
  const key = typeof value === 'string' ? value : JSON.stringify(value);
  let resolved = byValue.get(key);
  if (!resolved) {
    resolved = machine.resolveState({ value: value as string, context: {} }) as LifecycleSnapshot;
    // The array only: its state nodes are the machine's own, which xstate memoises into.
    Object.freeze(resolved._nodes);
    freezeValue(resolved.value);
    byValue.set(key, resolved);
  }
  // As resolveState: no context is an empty one.
  return { ...resolved, context: (context ?? {}) as LifecycleSnapshot['context'], children: {}, historyValue: {} };
}

/** A state value (a state's name, or an object of them for nested states) frozen all the way down. */
function freezeValue(value: unknown): void {
  if (typeof value !== 'object' || value === null) return;
  for (const inner of Object.values(value)) freezeValue(inner);
  Object.freeze(value);
}
