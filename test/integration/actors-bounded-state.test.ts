import { existsSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  acknowledgeAll,
  acknowledgeSignal,
  applyLifecycleInputs,
  type Federation,
  initFederation,
  type LifecycleEnvelope,
  listSignals,
  onboardTeam,
  openFederation,
  type RegistryEntry,
  runActors,
  sendSignal,
  setTeamStatus,
} from 'fed';
import { getTeam, readEnvelope, readRegistry, workspacePaths, writeAck } from 'fed/testing';
import { expectExactlyOnce, readWholeJournal } from '../helpers/lifecycle-checks.js';
import { tempDir } from '../helpers/temp-dir.js';

const fast = { durable: false };

async function federation(): Promise<{ root: string; team: () => RegistryEntry }> {
  const root = tempDir();
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'docs' }, fast);
  return { root, team: () => getTeam(readRegistry(root), 'docs') };
}

const send = (root: string, type: string, subject: string) =>
  sendSignal(openFederation(root), { to: 'docs', type, subject }, fast);
const consume = (root: string) => runActors(openFederation(root), { team: 'docs', once: true, durable: false });
const events = (team: RegistryEntry) => readWholeJournal(team.location).map((l) => l.event);

/**
 * Run `meanwhile` once, as another process would, when `fed` asks for the team's section the `call`-th
 * time: `fed signal ack`'s first is its settling of what the lifecycle owes, before it reads the inbox, its
 * second the apply of what it read; a team actor's first is that apply.
 */
function whileWaitingForSection(fed: Federation, meanwhile: () => Promise<void>, call = 2): void {
  const store = fed.backend.lifecycles;
  const exclusive = store.exclusive.bind(store);
  let calls = 0;
  store.exclusive = (async (...args: Parameters<typeof exclusive>) => {
    if (++calls === call) await meanwhile();
    return exclusive(...args);
  }) as typeof exclusive;
}

/**
 * While `fed` waits for the team's section (whileWaitingForSection), another process writes the lifecycle
 * (it applies a signal of its own) and the signal file `file` of docs's inbox is moved aside: where it was
 * (`live`) and where it went (`aside`).
 */
function movedAsideMeanwhile(
  fed: Federation,
  root: string,
  team: () => RegistryEntry,
  file: string,
  call?: number,
): { live: string; aside: string } {
  const live = join(workspacePaths(team().location).inbox, file);
  const aside = join(root, 'aside.json');
  whileWaitingForSection(
    fed,
    async () => {
      const other = await send(root, 'report', 'another');
      await applyLifecycleInputs(openFederation(root), team(), [{ source: 'signal', signal: other.message }], fast);
      renameSync(live, aside);
    },
    call,
  );
  return { live, aside };
}

describe('the dedupe record stays small (ids leave it once their ack is durable)', () => {
  it('after 600 signals the envelope holds at most one batch of ids, and the next consumer drops them', async () => {
    const { root, team } = await federation();
    const ids: string[] = [];
    for (let i = 0; i < 600; i++) ids.push((await send(root, i === 0 ? 'directive' : 'question', `q ${i}`)).message.id);
    await consume(root);
    const envelope = readEnvelope(team().location)!;
    expect(envelope.dedupe).toBe('until-ack');
    // Each write drops the ids whose acks the one before made durable: what is left is the last batch's.
    expect(envelope.processed.length).toBeLessThanOrEqual(256);
    // What is left is one batch: its ids and the journal lines it owes (~250 bytes each), never the history.
    expect(statSync(workspacePaths(team().location).envelope).size).toBeLessThan(256 * 350);

    ids.push((await send(root, 'question', 'one more')).message.id);
    await consume(root);
    // The new consumer found the earlier batch's ids acknowledged: gone, like the new one's.
    expect(readEnvelope(team().location)!.processed).toEqual([]);
    expectExactlyOnce(root, team().location, ids);
    // A second run finds everything acknowledged, hence taken: it applies nothing again.
    await consume(root);
    expect(readWholeJournal(team().location)).toHaveLength(601);
  });

  it('a signal another process applied, acknowledged and let go of while a caller waited for the section is not applied again', async () => {
    const { root, team } = await federation();
    const ids = [(await send(root, 'directive', 'the mission')).message.id];
    await consume(root);
    ids.push((await send(root, 'question', 'asked once')).message.id);
    // What an agent acknowledging it by id read before it waited for the team's section, as `fed signal
    // ack` reads it: the lifecycle's version, then the signal, not acknowledged.
    const { backend } = openFederation(root);
    const readAgainst = await backend.lifecycles.version(team());
    const [seen] = await backend.signals.inbox({ id: 'docs', entry: team() }).find(ids[1]!);
    expect(seen?.message.acknowledged).toBeFalsy();
    // Meanwhile a consumer applies and acknowledges it, and its next write drops it from the record.
    await consume(root);
    await consume(root);
    expect(readEnvelope(team().location)!.processed).toEqual([]);
    // The agent's apply then finds it acknowledged under the section: taken, not applied twice.
    const applied = await applyLifecycleInputs(
      openFederation(root),
      team(),
      [{ source: 'signal', signal: seen!.message, file: seen!.file }],
      { ...fast, inboxReadAgainst: readAgainst },
    );
    expect(applied.steps.map((step) => step.outcome)).toEqual(['duplicate']);
    expectExactlyOnce(root, team().location, ids);
  });

  it('a signal that left the inbox after a caller read it, once another process wrote, is neither applied nor acknowledged', async () => {
    const { root, team } = await federation();
    const mission = await send(root, 'directive', 'the mission');
    const { backend } = openFederation(root);
    const readAgainst = await backend.lifecycles.version(team());
    const asked = await send(root, 'question', 'moved away');
    const [seen] = await backend.signals.inbox({ id: 'docs', entry: team() }).find(asked.message.id);
    // Another process writes (it applies the mission), and the question is taken out of the inbox by hand.
    await applyLifecycleInputs(openFederation(root), team(), [{ source: 'signal', signal: mission.message }], fast);
    rmSync(join(workspacePaths(team().location).inbox, seen!.file));
    const applied = await applyLifecycleInputs(
      openFederation(root),
      team(),
      [{ source: 'signal', signal: seen!.message, file: seen!.file }],
      { ...fast, inboxReadAgainst: readAgainst },
    );
    expect(applied.steps).toEqual([]);
    expect(applied.warnings.join('\n')).toContain(`signal ${asked.message.id} left the inbox after it was read`);
    expect(readWholeJournal(team().location).map((l) => l.signalId)).not.toContain(asked.message.id);
  });

  it("a lifecycle's version never comes back: each write's file is timed after the one it replaces, even when the clock has not moved past it", async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'the mission');
    await consume(root);
    // The clock behind the file's time, as within one tick of a coarse clock (or after a step back).
    const envelope = workspacePaths(team().location).envelope;
    const ahead = Date.now() / 1000 + 60;
    utimesSync(envelope, ahead, ahead);
    const { backend } = openFederation(root);
    const versions = [await backend.lifecycles.version(team())];
    const times = [statSync(envelope, { bigint: true }).mtimeNs];
    for (const subject of ['first', 'second']) {
      await send(root, 'question', subject);
      await consume(root);
      versions.push(await backend.lifecycles.version(team()));
      times.push(statSync(envelope, { bigint: true }).mtimeNs);
    }
    expect(new Set(versions).size).toBe(3);
    expect(times[1]! > times[0]! && times[2]! > times[1]!).toBe(true);
    // A microsecond or so past the one before, not the clock's time a minute back.
    expect(Number(times[2]! - times[0]!)).toBeLessThan(1e6);
  });

  it('fed signal ack of a signal moved out of the inbox while the command waited for the section refuses, acknowledges nothing, and the signal is applied once it is back', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'the mission');
    await consume(root);
    const asked = await send(root, 'question', 'moved aside for a moment');
    // While the command waits for the team's section, another process writes the lifecycle and the
    // question is moved aside.
    const fed = openFederation(root);
    const { live, aside } = movedAsideMeanwhile(fed, root, team, asked.file);
    const warnings: string[] = [];
    await expect(
      acknowledgeSignal(fed, 'docs', asked.message.id, { ...fast, onWarning: (w) => warnings.push(w) }),
    ).rejects.toMatchObject({
      code: 'UNKNOWN_SIGNAL',
      message: expect.stringContaining('nothing was applied or acknowledged') as unknown,
    });
    // The refusal says the signal left; no warning says it a second time.
    expect(warnings).toEqual([]);
    expect(existsSync(`${live}.ack`)).toBe(false);
    // Back in the inbox, it is still to be applied — and it is, once.
    renameSync(aside, live);
    await consume(root);
    expect(readWholeJournal(team().location).filter((l) => l.signalId === asked.message.id)).toHaveLength(1);
  });

  it('fed signal ack --all leaves a signal moved out of the inbox meanwhile unacknowledged, says so, and takes the others', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'the mission');
    await consume(root);
    const kept = await send(root, 'question', 'kept');
    const moved = await send(root, 'question', 'moved aside');
    const fed = openFederation(root);
    const { live } = movedAsideMeanwhile(fed, root, team, moved.file);
    const result = await acknowledgeAll(fed, 'docs', fast);
    expect(result.acknowledged.map((a) => a.signal.message.id)).toEqual([kept.message.id]);
    expect(result.warnings.join('\n')).toContain(`signal ${moved.message.id} left the inbox after it was read`);
    expect(existsSync(`${live}.ack`)).toBe(false);
  });

  it('a team actor pass whose only pending signal left the inbox meanwhile says nothing is held back, and takes it once it is back', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'the mission');
    await consume(root);
    const asked = await send(root, 'question', 'moved aside');
    const fed = openFederation(root);
    // A team actor's first ask for the section is its apply.
    const { live, aside } = movedAsideMeanwhile(fed, root, team, asked.file, 1);
    const [result] = await runActors(fed, { team: 'docs', once: true, durable: false });
    expect(result!.warnings.join('\n')).toContain(`signal ${asked.message.id} left the inbox after it was read`);
    // Not "1 signal(s) wait until the team resumes": the team is not paused, and nothing waits.
    expect(result!.deferred).toBe(0);
    renameSync(aside, live);
    await consume(root);
    expect(readWholeJournal(team().location).filter((l) => l.signalId === asked.message.id)).toHaveLength(1);
  });

  it('an envelope of the previous release (every id, no dedupe field) loads, applies a signal its agent acknowledged early, and is pruned on its next write', async () => {
    const { root, team } = await federation();
    await send(root, 'question', 'before');
    await consume(root);
    // The previous release kept every id ever applied and wrote no `dedupe` field.
    const file = workspacePaths(team().location).envelope;
    const { dedupe: _dedupe, ...current } = JSON.parse(readFileSync(file, 'utf8')) as LifecycleEnvelope;
    const history = Array.from({ length: 2_000 }, () => randomUUID());
    writeFileSync(file, JSON.stringify({ ...current, processed: [...history, ...current.processed] }));
    // Its agents acknowledged signals before the actor applied them (a mission, here).
    const mission = await send(root, 'directive', 'the mission');
    const [entry] = (await listSignals(openFederation(root), { team: 'docs' })).signals.filter(
      (s) => s.message.id === mission.message.id,
    );
    writeAck(entry!, fast);

    await consume(root);
    expect(events(team())).toEqual(['QUESTION_RECEIVED', 'MISSION_ASSIGNED']);
    const envelope = readEnvelope(team().location)!;
    expect(envelope.dedupe).toBe('until-ack');
    expect(envelope.processed).toEqual([]);
  });
});

describe('an acknowledgment means the signal is applied', () => {
  it('an agent that acknowledges a pause directive before the actor runs still pauses the team, once', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'the mission');
    await consume(root);
    const pause = await send(root, 'directive', 'pause');
    await acknowledgeSignal(openFederation(root), 'docs', pause.message.id, fast);
    expect(team().status).toBe('paused');
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE']);
    const [result] = await consume(root);
    expect(result?.steps ?? []).toEqual([]);
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE']);
    // Acknowledging again applies nothing.
    expect(
      (await acknowledgeSignal(openFederation(root), 'docs', pause.message.id, fast))[0]?.alreadyAcknowledged,
    ).toBe(true);
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE']);
  });

  it('signals acknowledged by hand while paused are held in the envelope and applied, in order, when the team resumes', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'the mission');
    await consume(root);
    await setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' }, fast);
    const first = await send(root, 'directive', 'first while paused');
    const second = await send(root, 'question', 'second while paused');
    const acked = await acknowledgeAll(openFederation(root), 'docs', fast);
    expect(acked.acknowledged).toHaveLength(2);
    expect(readEnvelope(team().location)!.held?.map((h) => h.id)).toEqual([first.message.id, second.message.id]);
    await consume(root);
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE']);

    await send(root, 'directive', 'resume');
    await consume(root);
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE', 'RESUME', 'DIRECTIVE_RECEIVED', 'QUESTION_RECEIVED']);
    expect(
      readWholeJournal(team().location)
        .slice(3)
        .map((l) => l.signalId),
    ).toEqual([first.message.id, second.message.id]);
    expect(readEnvelope(team().location)!.held).toBeUndefined();
    expect(team().status).toBe('active');
    await consume(root);
    expect(readWholeJournal(team().location)).toHaveLength(5);
  });

  it('a held signal is applied when the team is resumed with fed team resume too', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'the mission');
    await consume(root);
    await setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' }, fast);
    const question = await send(root, 'question', 'while paused');
    await acknowledgeSignal(openFederation(root), 'docs', question.message.id, fast);
    await setTeamStatus(openFederation(root), 'docs', { type: 'RESUME' }, fast);
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE', 'RESUME', 'QUESTION_RECEIVED']);
    expect(readEnvelope(team().location)!.held).toBeUndefined();
  });
});

describe('held signals are never lost', () => {
  it('a pause acknowledged while paused is held; applied at the resume it pauses again, and the signals held after it stay held until the next resume', async () => {
    const { root, team } = await federation();
    await send(root, 'directive', 'the mission');
    await consume(root);
    await setTeamStatus(openFederation(root), 'docs', { type: 'PAUSE' }, fast);
    const pauseAgain = await send(root, 'directive', 'pause');
    const question = await send(root, 'question', 'after the second pause');
    await acknowledgeAll(openFederation(root), 'docs', fast);
    expect(readEnvelope(team().location)!.held?.map((h) => h.id)).toEqual([pauseAgain.message.id, question.message.id]);

    await setTeamStatus(openFederation(root), 'docs', { type: 'RESUME' }, fast);
    // The held pause paused it again: the question waits, still held (it is acknowledged, so nothing else would apply it).
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE', 'RESUME', 'PAUSE']);
    expect(readEnvelope(team().location)!.held?.map((h) => h.id)).toEqual([question.message.id]);
    await consume(root);
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE', 'RESUME', 'PAUSE']);

    await setTeamStatus(openFederation(root), 'docs', { type: 'RESUME' }, fast);
    expect(events(team())).toEqual(['MISSION_ASSIGNED', 'PAUSE', 'RESUME', 'PAUSE', 'RESUME', 'QUESTION_RECEIVED']);
    expect(readEnvelope(team().location)!.held).toBeUndefined();
  });
});

describe('a broken ack never makes a signal apply twice while its id is in the record', () => {
  it('the ack of a just-applied signal is found corrupt by the next consumer: quarantined, the signal acknowledged again, applied once', async () => {
    const { root, team } = await federation();
    const mission = await send(root, 'directive', 'the mission');
    await consume(root);
    // The last batch's id is still in the record (its ack is durable, but no write has dropped it yet).
    expect(readEnvelope(team().location)!.processed).toEqual([mission.message.id]);
    const ack = `${mission.inboxPath}.ack`;
    writeFileSync(ack, 'garbage');
    const old = new Date(Date.now() - 60_000);
    utimesSync(ack, old, old);
    const [result] = await consume(root);
    expect(result?.quarantined.map((q) => q.file)).toEqual([`${mission.file}.ack`]);
    expect(events(team())).toEqual(['MISSION_ASSIGNED']);
    expect(JSON.parse(readFileSync(ack, 'utf8'))).toMatchObject({ acknowledged: true });
  });
});
