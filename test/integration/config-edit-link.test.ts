import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A federate.config.json that is a symbolic link (a config kept in a dotfiles repository and linked): the
 * commands that edit the config (`fed schedule add|remove`, `fed team onboard --model …`) write the file
 * the link leads to, and the link stays a link. A link that leads nowhere is refused, the link untouched.
 */
describe('editing a linked config', () => {
  /** A federation whose config is a link to `real.json` in a folder of its own. */
  async function linkedConfig() {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const dotfiles = tempDir('fed-dotfiles-');
    const real = join(dotfiles, 'real.json');
    const config = join(root, 'federate.config.json');
    renameSync(config, real);
    symlinkSync(real, config);
    return { root, config, real, dotfiles };
  }

  it('fed schedule add and remove edit the file the link leads to; the link stays', async () => {
    const { root, config, real, dotfiles } = await linkedConfig();
    const added = await fedInProcess(
      ['schedule', 'add', '--to', 'docs', '--subject', 'nightly', '--cron', '@daily'],
      root,
    );
    expect(added, added.stderr).toMatchObject({ code: 0 });
    expect(readlinkSync(config)).toBe(real);
    const schedules = () =>
      (JSON.parse(readFileSync(real, 'utf8')) as { schedules?: { id: string }[] }).schedules ?? [];
    expect(schedules()).toHaveLength(1);
    // Written beside the target, and nothing left there but it.
    expect(readdirSync(dotfiles)).toEqual(['real.json']);
    const removed = await fedInProcess(['schedule', 'remove', schedules()[0]!.id], root);
    expect(removed, removed.stderr).toMatchObject({ code: 0 });
    expect(lstatSync(config).isSymbolicLink()).toBe(true);
    expect(schedules()).toEqual([]);
  });

  it('fed team onboard --model follows a relative link, through a linked folder too', async () => {
    const { root, config, real, dotfiles } = await linkedConfig();
    const linkedFolder = join(tempDir('fed-links-'), 'dotfiles');
    symlinkSync(dotfiles, linkedFolder);
    rmSync(config);
    mkdirSync(join(root, 'links'));
    symlinkSync(join(linkedFolder, 'real.json'), join(root, 'links', 'config.json'));
    symlinkSync('links/config.json', config);
    const result = await fedInProcess(['team', 'onboard', 'api', '--model', 'opus'], root);
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(readlinkSync(config)).toBe('links/config.json');
    expect(JSON.parse(readFileSync(real, 'utf8'))).toMatchObject({ agent: { teams: { api: { model: 'opus' } } } });
  });

  it('refuses a link that leads nowhere: exit 2, naming the link and the fix, the link and the registry untouched', async () => {
    const { root, config, real } = await linkedConfig();
    renameSync(real, `${real}.away`);
    const registry = readFileSync(join(root, '.fed', 'team-registry.json'), 'utf8');
    for (const args of [
      ['schedule', 'add', '--to', 'docs', '--subject', 'nightly', '--cron', '@daily'],
      ['team', 'onboard', 'api', '--model', 'opus'],
    ]) {
      const result = await fedInProcess(args, root);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${config} cannot be used: a symbolic link that leads nowhere (to ${real})`);
      expect(result.stderr).toContain('point the link at the config file');
      expect(readlinkSync(config)).toBe(real);
      expect(existsSync(real)).toBe(false);
      expect(readFileSync(join(root, '.fed', 'team-registry.json'), 'utf8')).toBe(registry);
    }
  });
});
