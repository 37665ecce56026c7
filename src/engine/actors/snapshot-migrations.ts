import type { LifecycleEnvelope } from '../../core/schema/lifecycle-state.js';

/**
 * Migrations of persisted lifecycle snapshots, keyed by machine id and the version they upgrade *from*.
 * When a machine's definition changes in a way an old snapshot cannot be restored into (a state renamed,
 * context reshaped), its version is bumped and a migration from the previous version is registered here;
 * restoring chains them until the envelope is at the current version.
 */
export type SnapshotMigration = (envelope: LifecycleEnvelope) => LifecycleEnvelope;

const migrations = new Map<string, SnapshotMigration>();

const key = (machineId: string, fromVersion: number) => `${machineId}@${fromVersion}`;

/** Register a migration; returns a function that removes it again (for tests). */
export function registerSnapshotMigration(
  machineId: string,
  fromVersion: number,
  migrate: SnapshotMigration,
): () => void {
  const k = key(machineId, fromVersion);
  migrations.set(k, migrate);
  return () => migrations.delete(k);
}

export function findSnapshotMigration(machineId: string, fromVersion: number): SnapshotMigration | undefined {
  return migrations.get(key(machineId, fromVersion));
}
