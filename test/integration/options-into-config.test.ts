import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Options a command keeps in federate.config.json (`fed team onboard --agent …`, `fed schedule add`,
 * `fed init --name`): a bad one is the option's problem, said of the option (exit 2), never "the config is
 * invalid" of a file that is fine — and nothing is written.
 */
describe('options kept in the config', () => {
  async function federation(): Promise<{ root: string; config: () => string; registry: () => string }> {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const read = (file: string) => () => readFileSync(join(root, file), 'utf8');
    return { root, config: read('federate.config.json'), registry: read('.fed/team-registry.json') };
  }

  it.each([
    [['--agent', ''], '--agent: expected a non-empty string, got an empty string'],
    [['--agent', '   '], '--agent: expected a command, got only spaces'],
    [['--model', ''], '--model: expected a non-empty string, got an empty string'],
  ])('fed team onboard %j is refused naming the option, nothing onboarded or written', async (flags, message) => {
    const fed = await federation();
    const [config, registry] = [fed.config(), fed.registry()];
    const result = await fedInProcess(['team', 'onboard', 'api', ...flags], fed.root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('is invalid');
    expect([fed.config(), fed.registry()]).toEqual([config, registry]);
    expect(existsSync(join(fed.root, '.fed', 'teams', 'api'))).toBe(false);
  });

  it.each([
    [['--cron', 'bogus'], '--cron: expected a cron expression of 5 fields'],
    [
      ['--cron', '61 * * * *'],
      '--cron: expected a cron expression like "0 3 * * 1-5", got "61 * * * *" (CronPattern: Invalid value for minute: 61)',
    ],
    [['--cron', '0 3 * * *', '--tz', 'Mars/Olympus'], '--tz: expected an IANA time zone like "Europe/Paris"'],
    [['--on-ref', '-bad'], '--on-ref: expected a git ref like "main"'],
    [['--on-ref', 'main', '--id', 'Not A Slug'], '--id: '],
  ])('fed schedule add %j is refused naming the option, the config unchanged', async (flags, message) => {
    const fed = await federation();
    const config = fed.config();
    const result = await fedInProcess(['schedule', 'add', '--to', 'docs', '--subject', 'nightly', ...flags], fed.root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('is invalid');
    expect(result.stderr).not.toContain('fed schedule remove');
    expect(fed.config()).toBe(config);
  });

  it('fed schedule add run again without --id (its first run landed) adds no second schedule: refused, naming the first', async () => {
    const fed = await federation();
    const add = (...flags: string[]) =>
      fedInProcess(['schedule', 'add', '--to', 'docs', '--subject', 'Nightly', '--cron', '@daily', ...flags], fed.root);
    expect((await add()).code).toBe(0);
    const config = fed.config();
    const again = await add();
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('schedule "nightly" sends this directive to docs on this trigger already');
    expect(fed.config()).toBe(config);
    // Another trigger, or a second one asked for by its id, is a schedule of its own.
    expect((await add('--tz', 'Europe/Paris')).code).toBe(0);
    expect((await add('--id', 'nightly-twice')).code).toBe(0);
  });

  it('fed init --name "" is refused naming the option, and creates nothing', async () => {
    const root = tempDir();
    const result = await fedInProcess(['init', '--name', ''], root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--name: expected a non-empty string');
    expect(result.stderr).not.toContain('is invalid');
    expect(readdirSync(root)).toEqual([]);
  });

  it('a config that is already broken is still said of the file', async () => {
    const fed = await federation();
    const file = join(fed.root, 'federate.config.json');
    writeFileSync(file, JSON.stringify({ agentCommand: '' }));
    const result = await fedInProcess(['team', 'onboard', 'api', '--model', 'm'], fed.root);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file} is invalid`);
  });
});
