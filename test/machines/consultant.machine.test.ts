import { describe, expect, test } from 'vitest';
import { createActor } from 'xstate';
import { consultantMachine, type ConsultantContext, type ConsultantEvent } from 'fed';

/** The consultant lifecycle beyond what the model paths check: questions taken in arrival order. */
function run(events: ConsultantEvent[]) {
  const actor = createActor(consultantMachine).start();
  for (const event of events) actor.send(event);
  return actor.getSnapshot();
}

const question = (n: number, from = 'meta'): ConsultantEvent => ({
  type: 'QUESTION_RECEIVED',
  signalId: `q${n}`,
  subject: `question ${n}`,
  from,
});
const ready: ConsultantEvent[] = [
  { type: 'MISSION_ASSIGNED', signalId: 'm', subject: 'answer questions about the API', body: '' },
  { type: 'INDEXING_STARTED' },
  { type: 'INDEX_READY', filesIndexed: 10 },
];

describe('consultant machine', () => {
  test('questions that arrive while researching queue, and are researched one at a time in arrival order', () => {
    const snapshot = run([...ready, question(1), question(2, 'api-team'), question(3)]);
    const context = snapshot.context as ConsultantContext;
    expect(snapshot.value).toBe('researching');
    expect(context.current?.signalId).toBe('q1');
    expect(context.queue.map((q) => q.signalId)).toEqual(['q2', 'q3']);

    const answered: string[] = [];
    const actor = createActor(consultantMachine, { snapshot }).start();
    while (actor.getSnapshot().value === 'researching') {
      answered.push((actor.getSnapshot().context as ConsultantContext).current!.signalId);
      actor.send({ type: 'ANSWER_SENT', reportId: `r-${answered.length}` });
    }
    expect(answered).toEqual(['q1', 'q2', 'q3']);
    expect(actor.getSnapshot().value).toBe('ready');
    expect(actor.getSnapshot().context).toMatchObject({
      answered: 3,
      current: null,
      queue: [],
      lastAnswer: { questionId: 'q3', reportId: 'r-3' },
    });
  });

  test('questions that arrive before the index is ready are researched once it is, the asker kept', () => {
    const snapshot = run([ready[0]!, question(1, 'api-team'), ready[1]!, question(2), ready[2]!]);
    expect(snapshot.value).toBe('researching');
    expect((snapshot.context as ConsultantContext).current).toMatchObject({ signalId: 'q1', from: 'api-team' });
    expect((snapshot.context as ConsultantContext).queue.map((q) => q.signalId)).toEqual(['q2']);
  });

  test('a clarification waits for the asker, and their reply resumes the same question', () => {
    const snapshot = run([
      ...ready,
      question(1),
      { type: 'CLARIFICATION_REQUESTED' },
      question(2),
      { type: 'FEEDBACK_RECEIVED', signalId: 'f', subject: 'the HTTP layer' },
    ]);
    expect(snapshot.value).toBe('researching');
    expect(snapshot.context).toMatchObject({
      current: { signalId: 'q1' },
      queue: [{ signalId: 'q2' }],
      lastFeedback: { signalId: 'f' },
    });
  });

  test('it never completes: meta retires it, from any state that is not final', () => {
    for (const before of [
      [],
      ready,
      [...ready, question(1)],
      [...ready, question(1), { type: 'PAUSE' } as ConsultantEvent],
    ]) {
      const snapshot = run([...before, { type: 'RETIRE' }]);
      expect(snapshot.value).toBe('retired');
      expect(snapshot.status).toBe('done');
    }
    expect(Object.keys(consultantMachine.config.states ?? {})).not.toContain('complete');
  });

  test('an index of no files is refused by the event schema', async () => {
    const { consultantEventSchema } = await import('fed');
    expect(consultantEventSchema.safeParse({ type: 'INDEX_READY', filesIndexed: 0 }).success).toBe(false);
  });
});
