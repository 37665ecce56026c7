import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { openFederation } from 'fed';

/** Every open, listing and stat of a real file, by path: the test counts what the apply path touches. */
const calls: { op: string; path: string }[] = [];
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const counted =
    <F extends (...args: never[]) => unknown>(op: string, fn: F) =>
    (...args: Parameters<F>) => {
      calls.push({ op, path: String(args[0]) });
      return fn(...args);
    };
  const wrapped = {
    ...real,
    openSync: counted('open', real.openSync),
    readdirSync: counted('list', real.readdirSync),
    statSync: counted('stat', real.statSync),
    lstatSync: counted('stat', real.lstatSync),
  };
  return { ...wrapped, default: wrapped };
});

const { applyLifecycleInputs, initFederation, onboardTeam, runActors, sendSignal } = await import('fed');
const { getTeam } = await import('fed/testing');
const { readRegistry } = await import('fed/testing');
const { TeamInboxConsumer } = await import('fed/testing');
const { workspacePaths, federationPaths } = await import('fed/testing');
const { tempDir } = await import('../helpers/temp-dir.js');

beforeEach(() => {
  calls.length = 0;
});

function count(op: string, path: string): number {
  return calls.filter((c) => c.op === op && c.path === path).length;
}

describe('the apply path loads once and applies once', () => {
  it('one pause directive to a running consumer: 1 registry read (+2 version checks of its status write), no envelope read, 2 listings, 1 open of the signal', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const team = getTeam(readRegistry(root), 'docs');
    const consumer = new TeamInboxConsumer(openFederation(root), team, { durable: false });
    await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'directive', subject: 'the mission' },
      { durable: false },
    );
    await consumer.consume();
    const pause = await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'directive', subject: 'pause' },
      { durable: false },
    );

    calls.length = 0;
    const result = await consumer.consume();
    expect(result.steps.map((s) => s.line?.event)).toEqual(['PAUSE']);
    const paths = workspacePaths(team.location);
    const registry = federationPaths(root).registry;
    const seen = {
      registryReads: count('open', registry),
      envelopeReads: count('open', paths.envelope),
      signalOpens: count('open', pause.inboxPath),
      inboxListings: count('list', paths.inbox),
    };
    // Before: 5 registry reads (+2), 3 envelope reads, 2 opens of the signal, 3 listings. The second listing
    // is the pass that finds nothing more to do; the registry write re-checks lockVersion twice (CAS).
    expect(seen).toEqual({ registryReads: 3, envelopeReads: 0, signalOpens: 1, inboxListings: 2 });
  });

  it('an agent event that changes the state: 1 registry read and 1 envelope read, shared by its report to meta', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'directive', subject: 'the mission' },
      { durable: false },
    );
    await runActors(openFederation(root), { team: 'docs', once: true, durable: false });
    const team = getTeam(readRegistry(root), 'docs');

    calls.length = 0;
    const result = await applyLifecycleInputs(
      openFederation(root),
      team,
      [{ source: 'event', event: { type: 'PLAN_READY', sources: ['src'] } }],
      { durable: false },
    );
    expect(result.state).toBe('scanning');
    const paths = workspacePaths(team.location);
    expect({
      registryReads: count('open', federationPaths(root).registry),
      envelopeReads: count('open', paths.envelope),
    }).toEqual({ registryReads: 1, envelopeReads: 1 });
  });
});

describe('a report to meta costs the same however many meta has', () => {
  it("an agent event's report lists neither meta's inbox nor the team's outbox, and reads none of the earlier same-subject reports", async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const teams = ['docs', 'api', 'web', 'ops'];
    for (const domain of teams) {
      await onboardTeam(openFederation(root), { domain }, { durable: false });
      await sendSignal(
        openFederation(root),
        { to: domain, type: 'directive', subject: 'the mission' },
        { durable: false },
      );
    }
    await runActors(openFederation(root), { once: true, durable: false });
    // Three teams reported "preparing → scanning" to meta an hour ago: the subject the fourth one's report repeats.
    const anHourAgo = new Date(Date.now() - 3_600_000);
    for (const from of teams.slice(0, 3)) {
      await sendSignal(
        openFederation(root),
        { from, to: 'meta', type: 'report', subject: 'preparing → scanning', id: randomUUID() },
        { durable: false, now: () => anHourAgo },
      );
    }
    const meta = workspacePaths(root).inbox;
    const earlier = readdirSync(meta).filter((file) => file.includes('-report-preparing-scanning'));
    expect(earlier).toHaveLength(3);
    const team = getTeam(readRegistry(root), 'ops');

    calls.length = 0;
    await applyLifecycleInputs(
      openFederation(root),
      team,
      [{ source: 'event', event: { type: 'PLAN_READY', sources: ['src'] } }],
      { durable: false },
    );
    const listings = { metaInbox: count('list', meta), outbox: count('list', workspacePaths(team.location).outbox) };
    const opened = earlier.filter((file) => count('open', join(meta, file)) > 0);
    expect(readdirSync(meta).filter((file) => file.includes('-report-preparing-scanning'))).toHaveLength(4);
    expect({ listings, opened }).toEqual({ listings: { metaInbox: 0, outbox: 0 }, opened: [] });
  });
});

describe('the shared registry read is never used stale', () => {
  it('an apply that repairs an owed status (pause) and then applies a resume leaves the registry active', async () => {
    const { writeRegistryStatus } = await import('fed/testing');
    const { runFed } = await import('../helpers/fed-cli.js');
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'directive', subject: 'the mission' },
      { durable: false },
    );
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'pause' }, { durable: false });
    // Another process pauses the lifecycle (its settled effects are not known to this one)…
    expect((await runFed(['actors', 'run', '--once', '--team', 'docs'], { cwd: root })).code).toBe(0);
    // …and the registry is left active, as after a crash between the lifecycle write and the registry write.
    await writeRegistryStatus(openFederation(root), 'docs', { type: 'RESUME' });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'resume' }, { durable: false });
    await runActors(openFederation(root), { team: 'docs', once: true, durable: false });
    expect(getTeam(readRegistry(root), 'docs').status).toBe('active');
  });
});
