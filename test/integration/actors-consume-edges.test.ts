import { readdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acknowledgeSignal,
  applyLifecycleInputs,
  type Federation,
  openFederation,
  type RegistryEntry,
  setTeamStatus,
  type SignalInbox,
  viewLifecycle,
} from 'fed';
import { readEnvelope, readIdentifiedEnvelope, TeamInboxConsumer, workspacePaths, writeEnvelope } from 'fed/testing';
import { docsFederation, sendDirective } from '../helpers/docs-federation.js';

/**
 * The consumer's own last defences, reached in process (the e2e suites reach them through the built CLI,
 * where no change to the source under test is seen): a hand-dropped file reusing a delivered id, and a
 * quarantine that fails — because another consumer took the file first, or because the disk refuses.
 */
const federation = docsFederation;

/** A federation whose team inbox runs `beforeQuarantine` (on the real filesystem) before each quarantine. */
function withQuarantineHook(fed: Federation, beforeQuarantine: (path: string) => void): Federation {
  const signals = fed.backend.signals;
  const inbox: typeof signals.inbox = (...args) => {
    const real = signals.inbox(...args);
    return new Proxy(real, {
      get(target, key, receiver) {
        if (key !== 'quarantine') return Reflect.get(target, key, receiver) as unknown;
        const quarantine: SignalInbox['quarantine'] = (file, options) => {
          beforeQuarantine(file.path);
          return target.quarantine(file, options);
        };
        return quarantine;
      },
    });
  };
  return { ...fed, backend: { ...fed.backend, signals: { ...signals, inbox } } } as Federation;
}

const consumer = (fed: Federation, team: RegistryEntry) =>
  new TeamInboxConsumer(fed, team, { durable: false, settleMs: 0 });

/** A garbage file named like a signal, old enough to be judged at once. */
function garbage(inbox: string): string {
  const path = join(inbox, '2026-01-01T000000Z-directive-garbage.json');
  writeFileSync(path, 'not json');
  utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  return path;
}

describe('the consumer', () => {
  it('quarantines a hand-dropped file reusing a delivered id, and applies the delivered signal once', async () => {
    const { root, team } = await federation();
    const sent = await sendDirective(root, 'the real work');
    const real = JSON.parse(readFileSync(sent.inboxPath, 'utf8')) as Record<string, unknown>;
    const inbox = workspacePaths(team().location).inbox;
    // Earlier than the real one, so it comes first in inbox order: the one that would be applied.
    const intruder = '2026-01-01T000000Z-directive-other-work.json';
    writeFileSync(
      join(inbox, intruder),
      JSON.stringify({ ...real, subject: 'other work', timestamp: '2026-01-01T00:00:00.000Z' }),
    );

    const result = await consumer(openFederation(root), team()).consume();
    expect(result.quarantined).toEqual([
      expect.objectContaining({ file: intruder, reason: expect.stringContaining(`reuses the id ${sent.message.id}`) }),
    ]);
    expect(result.steps.filter((s) => s.outcome === 'applied').map((s) => s.signalId)).toEqual([sent.message.id]);
    expect((await viewLifecycle(openFederation(root), team())).mission?.subject).toBe('the real work');
    expect(JSON.parse(readFileSync(`${sent.inboxPath}.ack`, 'utf8'))).toMatchObject({ acknowledged: true });
  });

  it('passes over a bad file another consumer quarantined first, and keeps flowing', async () => {
    const { root, team } = await federation();
    const bad = garbage(workspacePaths(team().location).inbox);
    const sent = await sendDirective(root, 'mission');
    // The other consumer wins the race: the file is gone when this one moves it.
    const fed = withQuarantineHook(openFederation(root), (path) => unlinkSync(path));

    const result = await consumer(fed, team()).consume();
    expect(result.quarantined).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.steps.filter((s) => s.outcome === 'applied').map((s) => s.signalId)).toEqual([sent.message.id]);
    expect(readdirSync(workspacePaths(team().location).inbox)).not.toContain(bad.split('/').pop());
  });

  it('leaves a bad file in place with a warning when the disk refuses its quarantine, and moves it once it can', async () => {
    const { root, team } = await federation();
    const bad = garbage(workspacePaths(team().location).inbox);
    const sent = await sendDirective(root, 'mission');
    // The disk is full when the move is made: the error the filesystem would give.
    const full = withQuarantineHook(openFederation(root), () => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });

    const refused = await consumer(full, team()).consume();
    expect(refused.quarantined).toEqual([]);
    // Once per pass over the inbox (the signal's apply makes a second one).
    expect([...new Set(refused.warnings)]).toEqual([
      expect.stringMatching(
        /^could not quarantine .*directive-garbage\.json \(.+\): ENOSPC: no space left on device; it stays in the inbox and is tried again$/,
      ),
    ]);
    expect(readFileSync(bad, 'utf8')).toBe('not json');
    expect(refused.steps.filter((s) => s.outcome === 'applied').map((s) => s.signalId)).toEqual([sent.message.id]);

    const moved = await consumer(openFederation(root), team()).consume();
    expect(moved.quarantined.map((q) => q.file)).toEqual(['2026-01-01T000000Z-directive-garbage.json']);
    expect(moved.warnings).toEqual([]);
  });

  it('applies the signals held during a pause once a write that did not read them back left the pause', async () => {
    const { root, team } = await federation();
    await sendDirective(root, 'pause');
    await consumer(openFederation(root), team()).consume();
    // Acknowledged while paused (fed signal ack): kept in the envelope's held list, out of the inbox's unread.
    const held = await sendDirective(root, 'document the API');
    await acknowledgeSignal(openFederation(root), 'docs', held.message.id, { durable: false });
    // A pass while still paused: the acknowledged id leaves the dedupe record, the signal stays held.
    await consumer(openFederation(root), team()).consume();
    const workspace = team().location;
    // Nothing to release while paused: a further pass writes nothing.
    const before = readIdentifiedEnvelope(workspace)!.identity;
    await consumer(openFederation(root), team()).consume();
    expect(readIdentifiedEnvelope(workspace)!.identity).toBe(before);
    const paused = readEnvelope(workspace)!;
    expect(paused.held?.map((h) => h.id)).toEqual([held.message.id]);
    // Left the pause by a write of its own (an earlier release's resume, a hand edit): the held list kept.
    await writeEnvelope(
      workspace,
      { ...paused, snapshot: { ...paused.snapshot, value: 'preparing' } },
      { durable: false },
    );

    const result = await consumer(openFederation(root), team()).consume();
    expect(result.steps).toEqual([expect.objectContaining({ outcome: 'applied', signalId: held.message.id })]);
    expect(result.state).toBe('preparing');
    expect(readEnvelope(workspace)!.held ?? []).toEqual([]);
    expect((await viewLifecycle(openFederation(root), team())).mission?.subject).toBe('document the API');
    // Released once: the next pass finds nothing to do.
    expect((await consumer(openFederation(root), team()).consume()).steps).toEqual([]);
  });

  it("lets an error that is not the filesystem's through: a bug is not a full disk", async () => {
    const { root, team } = await federation();
    garbage(workspacePaths(team().location).inbox);
    const broken = withQuarantineHook(openFederation(root), () => {
      throw new TypeError('a bug');
    });
    await expect(consumer(broken, team()).consume()).rejects.toThrow('a bug');
  });
});

describe('the report a state change owes meta', () => {
  /** The bodies of the reports in meta's inbox. */
  const reportsToMeta = (root: string) =>
    readdirSync(workspacePaths(root).inbox)
      .filter((f) => f.endsWith('.json'))
      .map((f) => (JSON.parse(readFileSync(join(workspacePaths(root).inbox, f), 'utf8')) as { body: string }).body);

  it('says what moved the team: a signal by its id, a fed team command, or the agent (no more, but why it failed)', async () => {
    const { root, team } = await federation();
    const pause = await sendDirective(root, 'pause');
    await consumer(openFederation(root), team()).consume();
    await setTeamStatus(openFederation(root), 'docs', { type: 'RESUME' }, { durable: false });
    await applyLifecycleInputs(
      openFederation(root),
      team(),
      [{ source: 'event', event: { type: 'FAIL', reason: 'the sources are gone' } }],
      { durable: false },
    );
    const at = '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z';
    const bodies = reportsToMeta(root);
    expect(bodies).toHaveLength(3);
    expect(bodies).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(
            `^Team docs \\(deliverable lifecycle\\) moved from preparing to paused on PAUSE \\(signal ${pause.message.id}\\) at ${at}\\.$`,
          ),
        ),
        expect.stringMatching(
          new RegExp(
            `^Team docs \\(deliverable lifecycle\\) moved from paused to preparing on RESUME \\(fed team command\\) at ${at}\\.$`,
          ),
        ),
        expect.stringMatching(
          new RegExp(
            `^Team docs \\(deliverable lifecycle\\) moved from preparing to failed on FAIL at ${at}\\. Reason: the sources are gone$`,
          ),
        ),
      ]),
    );
  });
});
