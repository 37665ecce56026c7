import { registerSnapshotMigration } from '../../actors/snapshot-migrations.js';
import { CODING_MACHINE_ID } from '../../../../machines/coding.machine.js';

/**
 * Coding snapshots of version 1 carry no `approvedCommit`: they get none. A team they left in pr-approved
 * has an approval pinned to no commit, which `fed team merge` refuses until the branch is approved again.
 */
registerSnapshotMigration(CODING_MACHINE_ID, 1, (envelope) => {
  const context = (envelope.snapshot.context ?? {}) as Record<string, unknown>;
  return {
    ...envelope,
    machineVersion: 2,
    snapshot: { ...envelope.snapshot, context: { ...context, approvedCommit: null } },
  };
});
