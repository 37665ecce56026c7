import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyLifecycleInputs, initFederation, onboardTeam, sendSignal } from '../../src/index.js';
import { openFederation } from '../../src/engine/context.js';
import { readRegistry } from '../../src/adapters/file/registry-file.js';
import { updateRegistry } from '../../src/engine/registry/update-registry.js';
import { getTeam } from '../../src/core/find-team.js';
import { federationPaths } from '../../src/core/layout.js';
import { REMEMBERED_FROM_BYTES } from '../../src/adapters/file/registry-validation.js';
import { registryEntrySchema, registrySchema, type RegistryEntry } from '../../src/core/schema/registry.js';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const TEAMS = 40;

afterEach(() => vi.restoreAllMocks());

/**
 * Validating the registry is what grows with the number of teams (~40 µs per entry before the code is
 * warm): a `fed event` that refreshes its team's lastActive reads the registry, then updates it under the
 * commit lock, and the text under the lock is the one it validated already. Before, it was validated
 * again there: twice per event.
 */
/** A federation of `teams` teams onboarded an hour ago; `team-7` waits in preparing for PLAN_READY. */
async function federation(teams: number): Promise<{ root: string; team: RegistryEntry }> {
  const root = tempDir();
  initFederation(root, {}, {});
  // Onboarded an hour ago: the event's report to meta refreshes the team's lastActive (a registry write).
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
  it('validates the registry once, its lastActive refresh included', async () => {
    const { root, team } = await federation(TEAMS);
    const validations = vi.spyOn(registrySchema, 'safeParse');
    expect(await event(root)).toMatchObject({ code: 0, stderr: '' });
    expect(getTeam(readRegistry(root), 'team-7').lastActive).not.toBe(team.lastActive);
    expect(validations).toHaveBeenCalledTimes(1);
  });

  it('with 1 000 teams validates only the entry it changed, once fed validated the registry', async () => {
    const { root, team } = await federation(1_000);
    expect(existsSync(federationPaths(root).registryValidated)).toBe(true);
    forget();
    const wholes = vi.spyOn(registrySchema, 'safeParse');
    const entries = vi.spyOn(registryEntrySchema, 'safeParse');
    expect(await event(root)).toMatchObject({ code: 0, stderr: '' });
    expect(getTeam(readRegistry(root), 'team-7').lastActive).not.toBe(team.lastActive);
    // Before: the registry validated whole at the read and again under the commit lock, 2 000 entries.
    expect(wholeValidations(wholes)).toBe(0);
    expect(entries).toHaveBeenCalledTimes(1);
    // And fed team show, in a process of its own as a user runs it, validates nothing of it again.
    forget();
    wholes.mockClear();
    expect(await fedInProcess(['team', 'show', 'team-20'], root)).toMatchObject({ code: 0, stderr: '' });
    expect(wholeValidations(wholes)).toBe(0);
  });

  it('with 1 000 teams parses the registry once, and neither clones it nor makes the text of its entries but the changed one', async () => {
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
    // stringified by the write to find the one it changed. Now only that one, validated as it is written.
    expect(registries(clones) + entries(clones)).toBe(0);
    expect(entries(texts)).toBe(1);
    // The written registry's one text: the file's.
    expect(registries(texts)).toBe(1);
    // Parsed once for the event's four reads (its later copies copy the entries), and once for the one above.
    // Before: once for each of the five, and once more to check the write.
    expect(parses.mock.calls.filter(([text]) => (text as string).length >= REMEMBERED_FROM_BYTES)).toHaveLength(2);
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
    writeFileSync(file, readFileSync(file, 'utf8').replace('"Team 998"', '"team-998"'));
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
