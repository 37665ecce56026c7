import { createActor } from 'xstate';
import { describe, expect, test } from 'vitest';
import { codingEntry, restoreSnapshot } from 'fed/testing';
import type { CodingEvent, LifecycleEnvelope } from 'fed';

describe('coding snapshots of version 1 (before approvals pinned a commit)', () => {
  test('load, with no approved commit, and keep their state', () => {
    const actor = createActor(codingEntry.machine).start();
    for (const event of [
      { type: 'MISSION_ASSIGNED', signalId: 's1', subject: 'x', body: 'y' },
      { type: 'PLAN_READY', tasks: ['t'] as string[] },
      { type: 'CHANGES_COMMITTED', commit: 'a1' },
      { type: 'TESTS_COMPLETE', passed: 1, failed: 0 },
      { type: 'REVIEW_REQUESTED', pullRequest: 'fed/app' },
      { type: 'PR_APPROVED', reviewer: 'meta', commit: 'a1' },
    ] as CodingEvent[]) {
      actor.send(event);
    }
    const persisted = actor.getPersistedSnapshot() as unknown as { context: Record<string, unknown> };
    const { approvedCommit: _, ...v1Context } = persisted.context;
    const envelope = {
      machineId: 'coding',
      machineVersion: 1,
      snapshot: { ...persisted, context: v1Context },
    } as unknown as LifecycleEnvelope;
    const restored = restoreSnapshot(envelope, codingEntry, 'state.json');
    expect(restored.value).toBe('pr-approved');
    expect(restored.context).toMatchObject({ approvedCommit: null, commit: 'a1' });
  });
});
