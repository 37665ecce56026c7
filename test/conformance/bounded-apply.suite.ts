import { describe, expect, it } from 'vitest';
import { acknowledgeAll, acknowledgeSignal, openFederation, runActors, sendSignal, setTeamStatus } from 'fed';
import { party, type ConformanceFactory } from './conformance-federation.js';

const SIGNALS = 60;
const BATCH = 16;

/**
 * What an acknowledgment means and why the lifecycle's state stays small, through the ports (above them,
 * so it holds for every adapter): fed acknowledges a signal only once its effect is saved (the team actor
 * and `fed signal ack` alike, a paused team holding it), and the dedupe record keeps an id only until its
 * acknowledgment is durable.
 */
export function describeBoundedApply(name: string, makeFederation: ConformanceFactory): void {
  describe(`${name}: an acknowledgment means applied; bounded dedupe record`, () => {
    it(`${SIGNALS} signals in batches of ${BATCH}: the envelope keeps at most one batch of ids, a second run none, nothing applied twice`, async () => {
      const fed = await makeFederation(['alpha']);
      const team = fed.teams.alpha!;
      const options = { durable: false };
      const ids: string[] = [];
      for (let i = 0; i < SIGNALS; i++)
        ids.push(
          (
            await sendSignal(
              openFederation(fed.root, { backend: fed.backend }),
              { to: 'alpha', type: i === 0 ? 'directive' : 'question', subject: `q ${i}` },
              options,
            )
          ).message.id,
        );
      await runActors(openFederation(fed.root, { backend: fed.backend }), {
        ...options,
        team: 'alpha',
        once: true,
        batchSize: BATCH,
      });
      const first = (await fed.backend.lifecycles.read(team))!.envelope;
      expect(first.dedupe).toBe('until-ack');
      expect(first.processed.length).toBeLessThanOrEqual(BATCH);
      expect((await fed.backend.signals.inbox(party(team)).pending()).signals).toEqual([]);

      // A new consumer (as after a restart) finds those ids acknowledged: they leave the record.
      const extra = await sendSignal(
        openFederation(fed.root, { backend: fed.backend }),
        { to: 'alpha', type: 'question', subject: 'one more' },
        options,
      );
      await runActors(openFederation(fed.root, { backend: fed.backend }), {
        ...options,
        team: 'alpha',
        once: true,
        batchSize: BATCH,
      });
      expect((await fed.backend.lifecycles.read(team))!.envelope.processed).toEqual([]);
      const journal = await fed.backend.lifecycles.journalTail(team, 2 * SIGNALS);
      expect(journal.map((l) => l.signalId).sort()).toEqual([...ids, extra.message.id].sort());
    }, 120_000);

    it('fed signal ack applies before it acknowledges; while paused the signal is held and applied on resume, once', async () => {
      const fed = await makeFederation(['alpha']);
      const team = fed.teams.alpha!;
      const options = { durable: false };
      const mission = await sendSignal(
        openFederation(fed.root, { backend: fed.backend }),
        { to: 'alpha', type: 'directive', subject: 'the mission' },
        options,
      );
      await acknowledgeSignal(openFederation(fed.root, { backend: fed.backend }), 'alpha', mission.message.id, {
        durable: false,
      });
      const events = async () => (await fed.backend.lifecycles.journalTail(team, 50)).map((l) => l.event);
      expect(await events()).toEqual(['MISSION_ASSIGNED']);

      await setTeamStatus(openFederation(fed.root, { backend: fed.backend }), 'alpha', { type: 'PAUSE' }, options);
      const question = await sendSignal(
        openFederation(fed.root, { backend: fed.backend }),
        { to: 'alpha', type: 'question', subject: 'while paused' },
        options,
      );
      expect(
        (await acknowledgeAll(openFederation(fed.root, { backend: fed.backend }), 'alpha', { durable: false }))
          .acknowledged,
      ).toHaveLength(1);
      expect((await fed.backend.lifecycles.read(team))!.envelope.held?.map((h) => h.id)).toEqual([question.message.id]);
      // The actor never applies an acknowledged signal: nothing happens until the team resumes.
      await runActors(openFederation(fed.root, { backend: fed.backend }), { ...options, team: 'alpha', once: true });
      expect(await events()).toEqual(['MISSION_ASSIGNED', 'PAUSE']);
      await setTeamStatus(openFederation(fed.root, { backend: fed.backend }), 'alpha', { type: 'RESUME' }, options);
      await runActors(openFederation(fed.root, { backend: fed.backend }), { ...options, team: 'alpha', once: true });
      expect(await events()).toEqual(['MISSION_ASSIGNED', 'PAUSE', 'RESUME', 'QUESTION_RECEIVED']);
      expect((await fed.backend.lifecycles.read(team))!.envelope.held).toBeUndefined();
    }, 60_000);
  });
}
