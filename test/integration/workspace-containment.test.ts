import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { federationPaths, readRegistry } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Every file below `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

async function federationWith(teams: string[]): Promise<string> {
  const root = tempDir();
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  for (const domain of teams) await onboardTeam(openFederation(root), { domain }, { durable: false });
  return root;
}

function setLocation(root: string, domain: string, location: string): void {
  const file = federationPaths(root).registry;
  const registry = JSON.parse(readFileSync(file, 'utf8')) as { teams: { domain: string; location: string }[] };
  registry.teams.find((t) => t.domain === domain)!.location = location;
  writeFileSync(file, JSON.stringify(registry, null, 2));
}

/** The commands issue 19 found writing (or running an agent) outside the federation. */
const WRITERS: [string, string[]][] = [
  ['fed event', ['event', '--team', 'docs', 'FAIL', '--data', '{"reason":"x"}']],
  ['fed team pause', ['team', 'pause', 'docs']],
  ['fed actors run --team', ['actors', 'run', '--team', 'docs', '--once']],
  ['fed launch', ['launch', '--team', 'docs', '--agent', 'touch escaped']],
  ['fed signal send', ['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Go']],
];

describe('nothing outside the federation (issue 19 item 8)', () => {
  it('a registry location outside the root is refused by every command that writes there, naming the team and path', async () => {
    const root = await federationWith(['docs']);
    const elsewhere = tempDir('fed-elsewhere-');
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Mission' }, { durable: false });
    cpSync(join(root, '.fed', 'teams', 'docs'), elsewhere, { recursive: true });
    setLocation(root, 'docs', elsewhere);
    const before = tree(elsewhere);
    for (const [what, args] of WRITERS) {
      const result = await runFed(['--root', root, ...args]);
      expect(result.code, `${what}: ${result.stdout}${result.stderr}`).toBe(2);
      expect(result.stderr, what).toContain(`the workspace of team "docs" is outside the federation root ${root}`);
      expect(result.stderr, what).toContain(elsewhere);
    }
    expect(tree(elsewhere)).toEqual(before);
    expect(readRegistry(root).teams[0]?.status).toBe('active');
    // Archiving, which the refusals suggest, touches only the registry and works.
    expect((await runFed(['--root', root, 'team', 'archive', 'docs'])).code).toBe(0);
    expect(tree(elsewhere)).toEqual(before);
  }, 60_000);

  it('a workspace replaced by a symbolic link is refused, and actors run carries on with the other teams', async () => {
    const root = await federationWith(['docs', 'api']);
    const outside = tempDir('fed-outside-');
    const docs = join(root, '.fed', 'teams', 'docs');
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Mission' }, { durable: false });
    await sendSignal(openFederation(root), { to: 'api', type: 'directive', subject: 'Mission' }, { durable: false });
    // What an agent could do from inside its workspace: move it out and leave a link behind.
    renameSync(docs, join(outside, 'docs'));
    symlinkSync(join(outside, 'docs'), docs);
    const before = tree(outside);
    for (const [what, args] of WRITERS) {
      const result = await runFed(['--root', root, ...args]);
      expect(result.code, `${what}: ${result.stderr}`).toBe(2);
      expect(result.stderr, what).toContain(
        `the workspace of team "docs" goes through a symbolic link: ${docs} → ${join(outside, 'docs')}`,
      );
      expect(result.stderr, what).toContain('replace the link with the real directory');
    }
    const all = await runFed(['--root', root, 'actors', 'run', '--once']);
    // The other team ran; the exit code says one team could not.
    expect(all.code, all.stderr).toBe(2);
    expect(all.stdout).toContain('api: MISSION_ASSIGNED');
    expect(all.stderr).toContain('goes through a symbolic link');
    expect(tree(outside)).toEqual(before);
  }, 60_000);

  it('a link inside the workspace runtime folders is refused too', async () => {
    const root = await federationWith(['docs']);
    const outside = tempDir('fed-outside-');
    const state = join(root, '.fed', 'teams', 'docs', '.fed', 'state');
    mkdirSync(join(outside, 'state'));
    if (existsSync(state)) renameSync(state, join(outside, 'old-state'));
    symlinkSync(join(outside, 'state'), state);
    const result = await runFed(['--root', root, 'event', '--team', 'docs', 'FAIL', '--data', '{"reason":"x"}']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`goes through a symbolic link: ${state}`);
    expect(readdirSync(join(outside, 'state'))).toEqual([]);
  }, 30_000);
});
