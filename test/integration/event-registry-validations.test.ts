import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  applyLifecycleInputs,
  initFederation,
  onboardTeam,
  openFederation,
  type RegistryEntry,
  registryEntrySchema,
  registrySchema,
  sendSignal,
  updateRegistry,
} from 'fed';
import { federationPaths, getTeam, readRegistry, RegistryValidation, REMEMBERED_FROM_BYTES } from 'fed/testing';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const TEAMS = 40;

afterEach(() => vi.restoreAllMocks());

/**
 * Validating the registry is what grows with the number of teams (~40 µs per entry before the code is
 * warm). A `fed event` that refreshes its team's lastActive reads the registry and appends the activity
 * beside it (it was a registry write: validated again under the commit lock, twice per event, then the
 * entry it changed); the next registry write folds the activity in, validating only the entries it changed.
 */
/** A federation of `teams` teams onboarded an hour ago; `team-7` waits in preparing for PLAN_READY. */
async function federation(teams: number): Promise<{ root: string; team: RegistryEntry }> {
  const root = tempDir();
  initFederation(root, {}, {});
  // Onboarded an hour ago: the event's report to meta refreshes the team's lastActive.
  const fed = openFederation(root, { now: () => new Date(Date.now() - 3_600_000) });
  for (let t = 0; t < Math.min(teams, TEAMS); t++) await onboardTeam(fed, { domain: `team-${t}` }, { durable: false });
  // The others only as registry entries: a command about team-7 reads nothing else of them.
  await updateRegistry(fed, (registry) => {
    const model = registry.teams[0]!;
    for (let t = TEAMS; t < teams; t++)
      registry.teams.push({
        ...model,
        domain: `team-${t}`,
        domainId: `team-${t}`,
        location: `${root}/.fed/teams/team-${t}`,
      });
    return registry;
  });
  const team = getTeam(readRegistry(root), 'team-7');
  const mission = await sendSignal(
    fed,
    { to: team.domainId, type: 'directive', subject: 'Mission', body: 'Describe it' },
    { durable: false },
  );
  await applyLifecycleInputs(fed, team, [{ source: 'signal', signal: mission.message }], { durable: false });
  return { root, team };
}

/** Validations of the registry whole (an envelope checked on its own has no teams). */
const wholeValidations = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls.filter(([value]) => (value as { teams: unknown[] }).teams.length > 0).length;

/**
 * This process forgets the registry it validated last (it keeps one: another federation's replaces it), as a
 * command of its own would start: what it does not validate again, fed remembered across commands.
 */
function forget(): void {
  const other = tempDir();
  initFederation(other, {}, {});
  readRegistry(other);
}

const event = (root: string, team = 'team-7') =>
  fedInProcess(['event', '--team', team, 'PLAN_READY', '--data', '{"sources":["src"]}'], root);

describe('fed event in a federation of many teams', () => {
  it('validates the registry once, and refreshes lastActive without rewriting it', async () => {
    const { root, team } = await federation(TEAMS);
    const before = readRegistry(root).lockVersion;
    // As a command of its own starts: the registry is validated by the event's first read, and only then.
    forget();
    const validations = vi.spyOn(registrySchema, 'safeParse');
    expect(await event(root)).toMatchObject({ code: 0, stderr: '' });
    expect(getTeam(readRegistry(root), 'team-7').lastActive).not.toBe(team.lastActive);
    expect(validations).toHaveBeenCalledTimes(1);
    expect(readRegistry(root).lockVersion).toBe(before);
    expect(readFileSync(federationPaths(root).teamActivity, 'utf8')).toContain('"team":"team-7"');
  });

  it('with 1 000 teams validates nothing of it again once fed validated it, and a write validates only the entries it changed', async () => {
    const { root, team } = await federation(1_000);
    expect(existsSync(federationPaths(root).registryValidated)).toBe(true);
    forget();
    const wholes = vi.spyOn(registrySchema, 'safeParse');
    const entries = vi.spyOn(registryEntrySchema, 'safeParse');
    expect(await event(root)).toMatchObject({ code: 0, stderr: '' });
    expect(getTeam(readRegistry(root), 'team-7').lastActive).not.toBe(team.lastActive);
    // Before: the registry validated whole at the read and again under the commit lock, 2 000 entries.
    expect(wholeValidations(wholes)).toBe(0);
    expect(entries).toHaveBeenCalledTimes(0);
    // The next registry write (a pause) folds team-7's activity in: the two entries it changed, no more.
    forget();
    expect(await fedInProcess(['team', 'pause', 'team-20'], root)).toMatchObject({ code: 0, stderr: '' });
    expect(wholeValidations(wholes)).toBe(0);
    expect(entries).toHaveBeenCalledTimes(2);
    expect(existsSync(federationPaths(root).teamActivity)).toBe(false);
    expect(JSON.parse(readFileSync(federationPaths(root).registry, 'utf8'))).toMatchObject({
      teams: expect.arrayContaining([
        expect.objectContaining({ domainId: 'team-7', lastActive: getTeam(readRegistry(root), 'team-7').lastActive }),
      ]),
    });
    // And fed team show, in a process of its own as a user runs it, validates nothing of it again.
    forget();
    wholes.mockClear();
    expect(await fedInProcess(['team', 'show', 'team-20'], root)).toMatchObject({ code: 0, stderr: '' });
    expect(wholeValidations(wholes)).toBe(0);
  });

  it('with 1 000 teams parses the registry once, and neither clones it nor makes the text of any entry', async () => {
    const { root, team } = await federation(1_000);
    forget();
    const clones = vi.spyOn(globalThis, 'structuredClone');
    const texts = vi.spyOn(JSON, 'stringify');
    const parses = vi.spyOn(JSON, 'parse');
    const registries = (spy: { mock: { calls: unknown[][] } }) =>
      spy.mock.calls.filter(([value]) => Array.isArray((value as { teams?: unknown } | null)?.teams)).length;
    const entries = (spy: { mock: { calls: unknown[][] } }) =>
      spy.mock.calls.filter(([value]) => typeof (value as { domainId?: unknown } | null)?.domainId === 'string').length;
    expect(await event(root)).toMatchObject({ code: 0, stderr: '' });
    expect(getTeam(readRegistry(root), 'team-7').lastActive).not.toBe(team.lastActive);
    // Before: the registry cloned at each read (the event's four, the one above: 5), and all 2 000 entries
    // stringified by the write to find the one it changed. Now the refresh writes no registry at all.
    expect(registries(clones) + entries(clones)).toBe(0);
    expect(entries(texts)).toBe(0);
    expect(registries(texts)).toBe(0);
    // Parsed once for the event's reads and the one above (its later copies copy the entries). Before: once
    // for each of the five, and once more to check the write.
    expect(parses.mock.calls.filter(([text]) => (text as string).length >= REMEMBERED_FROM_BYTES)).toHaveLength(1);
  });

  it('validates whole a registry changed by anything else, and refuses a broken one', async () => {
    const { root } = await federation(1_000);
    const file = federationPaths(root).registry;
    const wholes = vi.spyOn(registrySchema, 'safeParse');
    // A valid change made without fed (an older fed, by hand): another text, validated whole.
    writeFileSync(file, readFileSync(file, 'utf8').replace('"team-999"', '"team-998b"'));
    expect(await fedInProcess(['team', 'show', 'team-20'], root)).toMatchObject({ code: 0 });
    expect(wholeValidations(wholes)).toBe(1);
    // A broken entry: refused as it always was, whatever fed remembers.
    writeFileSync(file, readFileSync(file, 'utf8').replace('"team-998b"', '"Team 998"'));
    const refused = await fedInProcess(['team', 'show', 'team-20'], root);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/team-registry\.json/);
    // What fed remembers, replaced by anything else, is only a miss.
    writeFileSync(file, readFileSync(file, 'utf8').replace('"Team 998"', '"team-999"'));
    writeFileSync(federationPaths(root).registryValidated, 'not a digest');
    forget();
    wholes.mockClear();
    expect(await event(root)).toMatchObject({ code: 0, stderr: '' });
    expect(wholeValidations(wholes)).toBe(1);
  });

  it('remembers nothing for a small registry: it is validated as before', async () => {
    const { root } = await federation(TEAMS);
    expect(await event(root)).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(federationPaths(root).registryValidated)).toBe(false);
  });
});

describe('the identity of a settled registry', () => {
  /** The lines of `.fed/team-registry.json.validated`: the digest, then the identity once kept. */
  const kept = (root: string) => readFileSync(federationPaths(root).registryValidated, 'utf8').split('\n');
  /** This process's clock, `ms` after the registry file last changed. */
  const sinceChange = (root: string, ms: number) =>
    vi.spyOn(Date, 'now').mockReturnValue(statSync(federationPaths(root).registry).ctimeMs + ms);
  const show = (root: string) => fedInProcess(['team', 'show', 'team-20'], root);

  it('keeps it once the file has not changed for 2 s, and then spares hashing the text', async () => {
    const { root } = await federation(1_000);
    // Changed half a second ago: a change within the same tick of the filesystem's clock could keep the
    // identity it has, so only the digest is kept.
    sinceChange(root, 500);
    forget();
    expect(await show(root)).toMatchObject({ code: 0, stderr: '' });
    expect(kept(root)).toHaveLength(1);
    sinceChange(root, 3_000);
    forget();
    expect(await show(root)).toMatchObject({ code: 0, stderr: '' });
    expect(kept(root)).toHaveLength(2);
    // The identity alone vouches for the text: with the digest beside it wrong, nothing is validated again.
    writeFileSync(federationPaths(root).registryValidated, ['0'.repeat(64), kept(root)[1]].join('\n'));
    forget();
    const wholes = vi.spyOn(registrySchema, 'safeParse');
    expect(await show(root)).toMatchObject({ code: 0, stderr: '' });
    expect(await event(root)).toMatchObject({ code: 0, stderr: '' });
    expect(wholeValidations(wholes)).toBe(0);
  });

  it('never believes the identity of a file that changed as it was read: its bytes may be of a write in place', async () => {
    const { root } = await federation(1_000);
    sinceChange(root, 3_000);
    forget();
    expect(await show(root)).toMatchObject({ code: 0, stderr: '' });
    const line = kept(root)[1]!;
    // The identity as the descriptor had it when opened; the bytes of a write in place made as it was read.
    const identity = line.slice(line.indexOf(' ') + 1);
    const torn = readFileSync(federationPaths(root).registry, 'utf8').replace('"team-999"', '"Team-99x"');
    const validation = new RegistryValidation(root);
    const now = Date.now();
    // Changed as it was read (its ctime, looked at after the read, is the read's time): the digest decides,
    // and refuses — however long after the read it is asked (a long validation, a stopped process).
    expect(validation.validated(torn, { identity, changedMs: now, readAtMs: now })).toBe(false);
    sinceChange(root, 60_000);
    expect(validation.validated(torn, { identity, changedMs: now, readAtMs: now })).toBe(false);
    // What the identity alone would have vouched for.
    expect(validation.validated(torn, { identity, changedMs: now - 3_000, readAtMs: now })).toBe(true);
  });

  it('never believes an identity the file no longer has: a same-size edit in place that keeps the mtime', async () => {
    const { root } = await federation(1_000);
    const file = federationPaths(root).registry;
    sinceChange(root, 3_000);
    forget();
    expect(await show(root)).toMatchObject({ code: 0, stderr: '' });
    expect(kept(root)).toHaveLength(2);
    // Written in place (the same inode), as long as it was, its mtime set back: its ctime cannot be.
    const editInPlace = (from: string, to: string) => {
      const { atime, mtime } = statSync(file);
      writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
      utimesSync(file, atime, mtime);
    };
    const wholes = vi.spyOn(registrySchema, 'safeParse');
    editInPlace('"team-999"', '"team-99x"');
    // Settled again by the next read, so that the identity is compared (not passed over as just changed).
    sinceChange(root, 3_000);
    forget();
    expect(await show(root)).toMatchObject({ code: 0, stderr: '' });
    expect(wholeValidations(wholes)).toBe(1);
    editInPlace('"team-99x"', '"Team-99x"');
    sinceChange(root, 3_000);
    forget();
    const refused = await show(root);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/team-registry\.json/);
  });
});
