import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { readRegistry, updateRegistryFile } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

async function federation(teams: readonly string[], root = tempDir()): Promise<string> {
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  for (const domain of teams) await onboardTeam(openFederation(root), { domain }, { durable: false });
  return root;
}

async function archive(root: string, team: string): Promise<void> {
  const archived = await runFed(['--root', root, 'team', 'archive', team]);
  expect(archived.code, archived.stderr).toBe(0);
}

describe('fed team remove', () => {
  it("removes an archived team's workspace in a moved federation, after fed doctor --fix relocated it", async () => {
    const dir = tempDir();
    const original = await federation(['aa', 'bb'], join(dir, 'm3'));
    await archive(original, 'bb');
    const root = join(dir, 'm4');
    renameSync(original, root);
    const workspace = join(root, '.fed', 'teams', 'bb');

    const fixed = await runFed(['--root', root, 'doctor', '--fix']);
    expect(fixed.code, fixed.stdout).toBe(0);
    expect(fixed.stdout).toContain('workspace (bb)');
    expect(readRegistry(root).teams.map((t) => t.location)).toEqual([join(root, '.fed', 'teams', 'aa'), workspace]);

    const removed = await runFed(['--root', root, 'team', 'remove', 'bb']);
    expect(removed, removed.stderr).toMatchObject({ code: 0, stdout: `removed bb: ${workspace}\n` });
    expect(existsSync(workspace)).toBe(false);
    expect((await runFed(['--root', root, 'doctor'])).code).toBe(0);
  }, 60_000);

  it("removes the moved federation's own workspace even before fed doctor --fix relocated the team", async () => {
    const dir = tempDir();
    const original = await federation(['bb'], join(dir, 'm3'));
    await archive(original, 'bb');
    const root = join(dir, 'm4');
    renameSync(original, root);
    const workspace = join(root, '.fed', 'teams', 'bb');

    const removed = await runFed(['--root', root, 'team', 'remove', 'bb', '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout)).toMatchObject({ team: 'bb', location: workspace, workspaceDeleted: true });
    expect(existsSync(workspace)).toBe(false);
    expect(readRegistry(root).teams).toEqual([]);
  }, 60_000);

  it('says when the workspace was already gone, and never names a deleted path that was not there', async () => {
    const root = await federation(['gone']);
    await archive(root, 'gone');
    const workspace = join(root, '.fed', 'teams', 'gone');
    rmSync(workspace, { recursive: true });
    const removed = await runFed(['--root', root, 'team', 'remove', 'gone']);
    expect(removed, removed.stderr).toMatchObject({
      code: 0,
      stdout: `removed gone: its registry entry; its workspace ${workspace} was already gone\n`,
    });
    const log = await runFed(['--root', root, 'log', '--team', 'gone']);
    expect(log.stdout).toContain(`removed: registry entry deleted; its workspace ${workspace} was already gone`);
  }, 60_000);

  it('refuses a workspace the registry places outside the root with advice for an archived team', async () => {
    const root = await federation(['a1']);
    await archive(root, 'a1');
    const elsewhere = join(tempDir(), 'elsewhere');
    mkdirSync(elsewhere);
    await updateRegistryFile(root, (registry) => {
      registry.teams[0]!.location = elsewhere;
      return registry;
    });
    const refused = await runFed(['--root', root, 'team', 'remove', 'a1']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `the workspace of team "a1" is ${elsewhere}, not where fed creates it (${join(root, '.fed', 'teams', 'a1')}); fed removes only its own workspaces — if the registry was edited, restore the team's location to ${join(root, '.fed', 'teams', 'a1')}`,
    );
    expect(refused.stderr).not.toContain('fed team archive');
    expect(existsSync(elsewhere)).toBe(true);

    // Gone from there while fed's own workspace is here: the entry is not dropped, leaving it an orphan.
    rmSync(elsewhere, { recursive: true });
    const kept = await runFed(['--root', root, 'team', 'remove', 'a1']);
    expect(kept.code).toBe(2);
    expect(kept.stderr).toContain(`team "a1" is registered at ${elsewhere}, which does not exist`);
    expect(readRegistry(root).teams).toHaveLength(1);
  }, 60_000);

  it("takes the team's agent settings out of the config, so a team onboarded again under its name does not inherit them", async () => {
    const root = await federation([]);
    const configFile = join(root, 'federate.config.json');
    const config = () => JSON.parse(readFileSync(configFile, 'utf8')) as { agent?: { teams?: object } };
    const onboarded = await runFed(['--root', root, 'team', 'onboard', 'a1', '--model', 'gpt-5', '--max-turns', '3']);
    expect(onboarded.code, onboarded.stderr).toBe(0);
    expect((await runFed(['--root', root, 'team', 'onboard', 'b1', '--max-turns', '5'])).code).toBe(0);
    expect(config().agent?.teams).toEqual({
      a1: { model: 'gpt-5', limits: { maxTurns: 3 } },
      b1: { limits: { maxTurns: 5 } },
    });
    await archive(root, 'a1');

    const removed = await runFed(['--root', root, 'team', 'remove', 'a1']);
    expect(removed, removed.stderr).toMatchObject({
      code: 0,
      stdout: `removed a1: ${join(root, '.fed', 'teams', 'a1')}; its agent settings (agent.teams.a1) taken out of federate.config.json\n`,
    });
    expect(config().agent?.teams).toEqual({ b1: { limits: { maxTurns: 5 } } });
    expect((await runFed(['--root', root, 'team', 'onboard', 'a1'])).code).toBe(0);
    expect(config().agent?.teams).toEqual({ b1: { limits: { maxTurns: 5 } } });
    const log = await runFed(['--root', root, 'log', '--team', 'a1']);
    expect(log.stdout).toContain('deleted; its agent settings taken out of federate.config.json');

    // The last team's settings taken out leave no empty objects; a team without settings leaves the file unwritten.
    await archive(root, 'b1');
    const json = await runFed(['--root', root, 'team', 'remove', 'b1', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ team: 'b1', agentSettingsCleared: true });
    expect(config().agent).toBeUndefined();
    await archive(root, 'a1');
    const written = statSync(configFile).mtimeMs;
    const plain = await runFed(['--root', root, 'team', 'remove', 'a1', '--json']);
    expect(JSON.parse(plain.stdout)).toMatchObject({ team: 'a1', agentSettingsCleared: false });
    expect(statSync(configFile).mtimeMs).toBe(written);
  }, 60_000);

  it("takes the team's schedules out with it, warned of at its archive and listed as never sent until then", async () => {
    const root = await federation(['h3', 'other']);
    const configFile = join(root, 'federate.config.json');
    const scheduleIds = () =>
      ((JSON.parse(readFileSync(configFile, 'utf8')) as { schedules?: { id: string }[] }).schedules ?? []).map(
        (s) => s.id,
      );
    const schedules: [string, string][] = [
      ['h3', 'h3 nightly'],
      ['h3', 'h3 weekly'],
      ['other', 'other nightly'],
    ];
    for (const [to, subject] of schedules) {
      const added = await runFed([
        '--root',
        root,
        'schedule',
        'add',
        '--to',
        to,
        '--subject',
        subject,
        '--cron',
        '0 3 * * *',
      ]);
      expect(added.code, added.stderr).toBe(0);
    }

    const archived = await runFed(['--root', root, 'team', 'archive', 'h3']);
    expect(archived.code, archived.stderr).toBe(0);
    expect(archived.stderr).toBe(
      'warning: the schedules h3-nightly, h3-weekly to h3 are never sent now (archived teams receive no signals); fed team remove h3 takes them out with the team — or now: fed schedule remove h3-nightly; fed schedule remove h3-weekly\n',
    );
    const listed = await runFed(['--root', root, 'schedule', 'list']);
    expect(listed.stdout).toMatch(/h3-nightly +h3 +on "0 3 \* \* \*" +never: team "h3" is archived/);
    expect(listed.stdout).toMatch(/other-nightly +other +on "0 3 \* \* \*" +\d{4}-/);

    const removed = await runFed(['--root', root, 'team', 'remove', 'h3']);
    expect(removed, removed.stderr).toMatchObject({
      code: 0,
      stdout: `removed h3: ${join(root, '.fed', 'teams', 'h3')}; its schedules (h3-nightly, h3-weekly) taken out of federate.config.json\n`,
    });
    expect(scheduleIds()).toEqual(['other-nightly']);
    const log = await runFed(['--root', root, 'log', '--team', 'h3']);
    expect(log.stdout).toContain('its schedules (h3-nightly, h3-weekly) taken out of federate.config.json');

    // The last schedule taken out leaves no empty list.
    await archive(root, 'other');
    const json = await runFed(['--root', root, 'team', 'remove', 'other', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ team: 'other', schedulesRemoved: ['other-nightly'] });
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).not.toHaveProperty('schedules');
  }, 60_000);
});
