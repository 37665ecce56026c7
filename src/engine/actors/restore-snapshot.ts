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
    const snapshot = entry.machine.resolveState({ value: persisted.value as string, context: persisted.context });
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
