import { describe, expect, test } from 'vitest';
import { createActor } from 'xstate';
import {
  CODING_MACHINE_ID,
  CODING_MACHINE_VERSION,
  acceptedEventTypes,
  checkEvent,
  codingEventSchema,
  codingMachine,
  type CodingEvent,
} from 'fed';

/** The coding lifecycle as docs/lifecycles.md documents it. */
const mission: CodingEvent = {
  type: 'MISSION_ASSIGNED',
  signalId: 'sig-1',
  subject: 'add /health',
  body: 'Add a health endpoint',
};
const plan: CodingEvent = { type: 'PLAN_READY', tasks: ['route', 'test'] };
const commit = (sha: string): CodingEvent => ({ type: 'CHANGES_COMMITTED', commit: sha });
const tests = (passed: number, failed: number): CodingEvent => ({ type: 'TESTS_COMPLETE', passed, failed });
const review: CodingEvent = { type: 'REVIEW_REQUESTED', pullRequest: 'https://git.example/acme/pull/9' };

function start(...events: CodingEvent[]) {
  const actor = createActor(codingMachine).start();
  for (const event of events) actor.send(event);
  return actor;
}

describe('coding machine', () => {
  test('is identified and versioned for persisted snapshots', () => {
    expect(codingMachine.id).toBe(CODING_MACHINE_ID);
    expect(CODING_MACHINE_ID).toBe('coding');
    expect(CODING_MACHINE_VERSION).toBe(2);
  });

  test('accepts, in each state, exactly the events docs/lifecycles.md lists', () => {
    const working = ['FAIL', 'PAUSE', 'DIRECTIVE_RECEIVED', 'QUESTION_RECEIVED'];
    const acceptedIn = (...events: CodingEvent[]) => [...acceptedEventTypes(start(...events).getSnapshot())].sort();
    const steps: [CodingEvent[], string[]][] = [
      [[], ['MISSION_ASSIGNED', 'PLAN_READY']],
      [[mission, plan], ['CHANGES_COMMITTED']],
      [[mission, plan, commit('a1')], ['TESTS_COMPLETE']],
      [[mission, plan, commit('a1'), tests(3, 0)], ['REVIEW_REQUESTED']],
      [
        [mission, plan, commit('a1'), tests(3, 0), review],
        ['CHANGES_REQUESTED', 'PR_APPROVED'],
      ],
      [
        [mission, plan, commit('a1'), tests(3, 0), review, { type: 'PR_APPROVED', reviewer: 'ada', commit: 'a1' }],
        ['PR_MERGED', 'PR_APPROVED', 'CHANGES_REQUESTED'],
      ],
      [
        [
          mission,
          plan,
          commit('a1'),
          tests(3, 0),
          review,
          { type: 'PR_APPROVED', reviewer: 'ada', commit: 'a1' },
          { type: 'PR_MERGED', commit: 'm1' },
        ],
        ['CLEANUP_DONE'],
      ],
    ];
    for (const [events, own] of steps) expect(acceptedIn(...events)).toEqual([...own, ...working].sort());
    expect(acceptedIn({ type: 'PAUSE' })).toEqual(['RESUME', 'FAIL', 'DIRECTIVE_RECEIVED', 'QUESTION_RECEIVED'].sort());
  });

  test('failing tests go back to implementing, and count as rework', () => {
    const actor = start(mission, plan, commit('a1'), tests(7, 2));
    expect(actor.getSnapshot().value).toBe('implementing');
    expect(actor.getSnapshot().context).toMatchObject({
      commit: 'a1',
      lastTestRun: { passed: 7, failed: 2 },
      reworks: 1,
    });
    actor.send(commit('a2'));
    actor.send(tests(9, 0));
    expect(actor.getSnapshot().value).toBe('pr-open');
    expect(actor.getSnapshot().context).toMatchObject({
      commit: 'a2',
      lastTestRun: { passed: 9, failed: 0 },
      reworks: 1,
    });
  });

  test('a test run with no tests at all proves nothing and is refused', () => {
    const actor = start(mission, plan, commit('a1'));
    expect(checkEvent(actor.getSnapshot(), tests(0, 0))).toMatchObject({
      accepted: false,
      reason: 'condition-not-met',
    });
  });

  test('requested changes go back to implementing; the updated PR is reviewed again, then merged and completed', () => {
    const actor = start(mission, plan, commit('a1'), tests(3, 0), review);
    expect(actor.getSnapshot().context.pullRequest).toBe('https://git.example/acme/pull/9');
    actor.send({ type: 'CHANGES_REQUESTED', reviewer: 'ada', comments: ['split the handler'] });
    expect(actor.getSnapshot().value).toBe('implementing');
    expect(actor.getSnapshot().context).toMatchObject({
      reworks: 1,
      lastReview: { outcome: 'changes-requested', reviewer: 'ada', comments: ['split the handler'] },
    });
    for (const event of [
      commit('a2'),
      tests(4, 0),
      review,
      { type: 'PR_APPROVED', reviewer: 'ada', commit: 'a1' },
      { type: 'PR_MERGED', commit: 'm1' },
    ] as CodingEvent[]) {
      actor.send(event);
    }
    expect(actor.getSnapshot().value).toBe('merged');
    expect(actor.getSnapshot().context).toMatchObject({
      mergeCommit: 'm1',
      lastReview: { outcome: 'approved', reviewer: 'ada' },
    });
    actor.send({ type: 'CLEANUP_DONE' });
    expect(actor.getSnapshot().value).toBe('complete');
    expect(actor.getSnapshot().status).toBe('done');
  });

  test('an approval pins the commit it approved; approved again, it pins the newer one, and requested changes drop it', () => {
    const actor = start(mission, plan, commit('a1'), tests(3, 0), review, {
      type: 'PR_APPROVED',
      reviewer: 'ada',
      commit: 'a1',
    });
    expect(actor.getSnapshot().context.approvedCommit).toBe('a1');
    actor.send({ type: 'PR_APPROVED', reviewer: 'ada', commit: 'a2' });
    expect(actor.getSnapshot().value).toBe('pr-approved');
    expect(actor.getSnapshot().context.approvedCommit).toBe('a2');
    actor.send({ type: 'CHANGES_REQUESTED', reviewer: 'ada', comments: ['not a2'] });
    expect(actor.getSnapshot().value).toBe('implementing');
    expect(actor.getSnapshot().context).toMatchObject({ approvedCommit: null, reworks: 1 });
  });

  test('PLAN_READY needs a mission; FAIL, PAUSE and RESUME work as in the deliverable lifecycle', () => {
    expect(start().getSnapshot().can(plan)).toBe(false);
    const actor = start(mission, plan, commit('a1'), tests(1, 0), { type: 'PAUSE' });
    expect(actor.getSnapshot().context.pausedFrom).toBe('pr-open');
    actor.send({ type: 'RESUME' });
    expect(actor.getSnapshot().value).toBe('pr-open');
    actor.send({ type: 'FAIL', reason: 'branch deleted upstream' });
    expect(actor.getSnapshot().context.failure).toEqual({ reason: 'branch deleted upstream', state: 'pr-open' });
  });

  test.each([
    [{ type: 'TESTS_COMPLETE', passed: 1 }, 'failed'],
    [{ type: 'TESTS_COMPLETE', passed: 1, failed: -1 }, 'failed'],
    [{ type: 'CHANGES_COMMITTED', commit: '' }, 'commit'],
    [{ type: 'REVIEW_REQUESTED' }, 'pullRequest'],
    [{ type: 'PR_APPROVED', reviewer: 'ada' }, 'commit'],
    [{ type: 'PR_APPROVED', reviewer: 'ada', approved: true }, 'approved'],
  ])('the event schema rejects %j (problem at %s)', (event, field) => {
    const result = codingEventSchema.safeParse(event);
    expect(result.success).toBe(false);
    const paths = result.error!.issues.map((issue) =>
      [...issue.path, ...('keys' in issue ? issue.keys : [])].join('.'),
    );
    expect(paths.join(' ')).toContain(field);
  });
});
