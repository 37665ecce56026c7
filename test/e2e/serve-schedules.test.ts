import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServeEvent } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { startServe } from '../helpers/fed-serve.js';
import { waitFor } from '../helpers/fixture-process.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';

/**
 * Schedules (config `schedules`, `fed schedule add|list|remove`) fired by the built `fed serve`: a cron
 * expression every 2 s fires on its ticks, a restart after missed ticks fires once, a git ref that moves
 * fires with its commit, and every firing is in `fed log`. Bad input is refused and leaves the config as it was.
 */
async function federation(): Promise<string> {
  const { root } = await federationWithMission({ mission: false });
  const file = join(root, 'federate.config.json');
  const written = JSON.parse(readFileSync(file, 'utf8')) as { agent?: object };
  // The directives are work for docs: its agent is a quick fake, unsandboxed (the schedules are the point).
  writeFileSync(
    file,
    JSON.stringify({ ...written, agentCommand: fakeAgent('complete'), agent: { ...written.agent, sandbox: false } }),
  );
  return root;
}

const fed = (root: string, ...args: string[]) => runFed(['--root', root, ...args]);
const fired = (events: ServeEvent[]) =>
  events.filter((e): e is Extract<ServeEvent, { kind: 'fired' }> => e.kind === 'fired');

describe('fed serve: schedules', () => {
  it('a cron schedule every 2 s fires on its ticks; after a restart that missed ticks it fires once', async () => {
    const root = await federation();
    const added = await fed(
      root,
      'schedule',
      'add',
      '--to',
      'docs',
      '--subject',
      'Refresh the docs',
      '--cron',
      '*/2 * * * * *',
      '--id',
      'refresh',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('added schedule refresh: a directive to docs on "*/2 * * * * *"');

    const first = startServe(root);
    await waitFor(() => fired(first.events).length >= 2 || first.child.exitCode !== null, 30_000, 'two firings');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const ticks = fired(first.events).map((e) => Date.parse(e.due));
    // On the even seconds, 2 s apart, each fired at or after its tick.
    for (const tick of ticks) expect(new Date(tick).getUTCSeconds() % 2).toBe(0);
    // Consecutive ticks (a firing slowed past the next tick by a loaded machine skips it: never fires it late twice).
    expect((ticks[1]! - ticks[0]!) % 2_000).toBe(0);
    expect(ticks[1]!).toBeGreaterThan(ticks[0]!);
    for (const event of fired(first.events)) expect(Date.parse(event.at)).toBeGreaterThanOrEqual(Date.parse(event.due));

    // Stopped for three ticks: the next start fires once for them, with the first it missed.
    const stoppedAt = Date.now();
    await waitFor(() => Date.now() > stoppedAt + 6_500, 10_000, 'three ticks to pass');
    const second = startServe(root);
    await second.waitForEvent('started');
    const caughtUp = await second.waitForEvent('fired');
    expect(Date.parse(caughtUp.due)).toBeLessThan(Date.parse(caughtUp.at) - 1_000);
    expect(Date.parse(caughtUp.due)).toBeGreaterThan(ticks.at(-1)!);
    // Its next firing is a tick after the start, not another missed one.
    const next = await second.waitForEvent('fired', (e) => e.signalId !== caughtUp.signalId);
    expect(Date.parse(next.due)).toBeGreaterThan(Date.parse(caughtUp.at));
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    // Every firing is in fed log, and each directive reached docs' inbox once.
    const all = [...fired(first.events), ...fired(second.events)];
    const log = await fed(root, 'log', '--team', 'docs');
    for (const event of all)
      expect(log.stdout).toContain(`schedule refresh sent the directive "Refresh the docs" (due ${event.due})`);
    const { signals } = JSON.parse((await fed(root, 'signal', 'list', '--team', 'docs', '--all', '--json')).stdout) as {
      signals: { message: { id: string } }[];
    };
    for (const event of all) expect(signals.filter((s) => s.message.id === event.signalId)).toHaveLength(1);
    const listed = JSON.parse((await fed(root, 'schedule', 'list', '--json')).stdout) as {
      lastFired: { signalId: string };
    }[];
    expect(listed[0]!.lastFired.signalId).toBe(fired(second.events).at(-1)!.signalId);
  }, 120_000);

  it('a schedule on a git ref fires when the ref moves, and once on start for a move made while nothing served', async () => {
    const root = await federation();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' }).toString().trim();
    const commit = (name: string) => {
      writeFileSync(join(root, name), `${name}\n`);
      git('add', name);
      git('commit', '-qm', name);
      return git('rev-parse', 'HEAD');
    };
    expect(
      (await fed(root, 'schedule', 'add', '--to', 'docs', '--subject', 'Docs after main moves', '--on-ref', 'main'))
        .code,
    ).toBe(0);

    const first = startServe(root);
    await first.waitForEvent('started');
    expect(fired(first.events)).toEqual([]);
    const moved = commit('one.txt');
    expect(await first.waitForEvent('fired')).toMatchObject({ schedule: 'docs-after-main-moves', team: 'docs' });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect((await fed(root, 'log')).stdout).toContain(`its ref moved to ${moved.slice(0, 12)}`);

    const movedWhileStopped = commit('two.txt');
    const second = startServe(root);
    await second.waitForEvent('fired');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(fired(second.events)).toHaveLength(1);
    expect((await fed(root, 'log')).stdout).toContain(`its ref moved to ${movedWhileStopped.slice(0, 12)}`);
  }, 120_000);

  it('a running server follows the config: a schedule added fires, one removed stops, a broken config is said', async () => {
    const root = await federation();
    const server = startServe(root);
    await server.waitForEvent('started');
    expect(
      (await fed(root, 'schedule', 'add', '--to', 'docs', '--subject', 'Tick', '--cron', '* * * * * *', '--id', 'tick'))
        .code,
    ).toBe(0);
    await server.waitForEvent('fired', (e) => e.schedule === 'tick');
    expect((await fed(root, 'schedule', 'remove', 'tick')).code).toBe(0);
    const removedAt = Date.now();
    // A firing already under way as it was removed may still land; none is due after that.
    // The server hears the change within moments; give it 2 s, then three ticks more.
    await waitFor(() => Date.now() > removedAt + 5_000, 10_000, 'three ticks to pass');
    expect(fired(server.events).filter((e) => Date.parse(e.due) > removedAt + 2_000)).toEqual([]);

    writeFileSync(join(root, 'federate.config.json'), '{ "schedules": [');
    const warning = await server.waitForEvent('warning');
    expect(warning.text).toContain('federate.config.json is invalid');
    expect(warning.text).toContain('the server goes on with the schedules it had');
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 120_000);

  it('a schedule that cannot send is said once, not on every tick, and again when that changes', async () => {
    const root = await federation();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' }).toString().trim();
    for (const args of [
      ['team', 'onboard', 'old'],
      ['schedule', 'add', '--to', 'old', '--subject', 'To old', '--cron', '* * * * * *', '--id', 'to-old'],
      ['schedule', 'add', '--to', 'docs', '--subject', 'Tick', '--cron', '* * * * * *', '--id', 'tick'],
      // Archived after its schedule was added: fed serve cannot send it.
      ['team', 'archive', 'old'],
    ]) {
      const done = await fed(root, ...args);
      expect(done.code, done.stderr).toBe(0);
    }
    // A ref schedule written by hand (fed schedule add refuses a ref the codebase does not have).
    const file = join(root, 'federate.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as { schedules: object[] };
    config.schedules.push({ id: 'later', to: 'docs', subject: 'After later', onRef: 'later' });
    writeFileSync(file, JSON.stringify(config));

    const server = startServe(root);
    const warnings = (id: string) =>
      server.events.filter((e) => e.kind === 'warning' && e.text.startsWith(`schedule ${id} `));
    const ticks = () => fired(server.events).filter((e) => e.schedule === 'tick').length;
    await waitFor(() => warnings('to-old').length > 0 || server.child.exitCode !== null, 30_000, 'the warning');
    // Three more ticks of the schedule that works: to-old failed on each, and was said once.
    const after = ticks();
    await waitFor(() => ticks() >= after + 3 || server.child.exitCode !== null, 30_000, 'three more ticks');
    expect(warnings('to-old').map((e) => e.kind === 'warning' && e.text)).toEqual([
      'schedule to-old did not send its directive to old: recipient (--to): team "old" is archived; archived teams neither send nor receive signals (list its history with: fed signal list --team old); it tries again on its next tick (said again only if this changes)',
    ]);
    expect(warnings('later').map((e) => e.kind === 'warning' && e.text)).toEqual([
      `schedule later waits for git ref later, which the codebase at ${root} does not have; it fires once the ref names a commit — or give it a ref the codebase has: fed schedule remove later, then add it again`,
    ]);

    // The ref made: it fires; deleted again: said again, once.
    git('branch', 'later');
    await server.waitForEvent('fired', (e) => e.schedule === 'later');
    git('branch', '-D', 'later');
    await waitFor(() => warnings('later').length === 2 || server.child.exitCode !== null, 30_000, 'the ref gone');
    const again = ticks();
    await waitFor(() => ticks() >= again + 2 || server.child.exitCode !== null, 30_000, 'two more ticks');
    expect(warnings('later')).toHaveLength(2);
    expect(warnings('to-old')).toHaveLength(1);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 120_000);

  it('bad schedules are refused naming what to fix, and the config is left as it was; remove takes one out', async () => {
    const root = await federation();
    for (const args of [
      ['team', 'onboard', 'old'],
      ['team', 'archive', 'old'],
    ]) {
      const done = await fed(root, ...args);
      expect(done.code, done.stderr).toBe(0);
    }
    const config = join(root, 'federate.config.json');
    const before = readFileSync(config, 'utf8');
    const refusals: [string[], RegExp][] = [
      [
        ['--to', 'docs', '--subject', 'x', '--cron', '99 * * * *'],
        /^fed: --cron: expected a cron expression like "0 3 \* \* 1-5", got "99 \* \* \* \*" \(CronPattern: Invalid value for minute: 99\)$/m,
      ],
      [
        ['--to', 'docs', '--subject', 'x', '--cron', 'every day'],
        /^fed: --cron: expected a cron expression of 5 fields/m,
      ],
      [['--to', 'nobody', '--subject', 'x', '--cron', '@daily'], /nobody/],
      // fed serve could never send it: it warned on every tick.
      [
        ['--to', 'old', '--subject', 'x', '--cron', '@daily'],
        /^fed: team "old" is archived; archived teams receive no signals, so a schedule to it would never fire — schedule another team$/m,
      ],
      [
        ['--to', 'docs', '--subject', 'x', '--cron', '@daily', '--tz', 'Mars/Olympus'],
        /--tz: expected an IANA time zone/,
      ],
      [['--to', 'docs', '--subject', 'x', '--cron', '@daily', '--on-ref', 'main'], /exactly one trigger/],
      // Said once: the ref's two checks each said it.
      [
        ['--to', 'docs', '--subject', 'x', '--on-ref', '--upload-pack=evil'],
        /^fed: --on-ref: expected a git ref like "main", got "--upload-pack=evil"\n$/,
      ],
      // A ref the codebase does not have never moves: fed serve waited on it without a word.
      [
        ['--to', 'docs', '--subject', 'x', '--on-ref', 'nosuchref'],
        /^fed: --on-ref: the codebase at \S+ has no ref "nosuchref" \(git rev-parse finds no commit for it\); give a branch or tag it has, like "main"/m,
      ],
      // A schedule that could never fire (schedule list showed NEXT never).
      [
        ['--to', 'docs', '--subject', 'x', '--cron', '0 0 30 2 *'],
        /^fed: --cron: "0 0 30 2 \*" never fires: it names no day that exists \(like 30 February\); give a cron expression like "0 3 \* \* 1-5"$/m,
      ],
      // Seven fields (a year) are not taken; the refusal names both forms that are.
      [
        ['--to', 'docs', '--subject', 'x', '--cron', '0 0 0 1 1 * 2030'],
        /^fed: --cron: expected a cron expression of 5 fields \(minute hour day month weekday, like "0 3 \* \* 1-5"\), 6 with seconds first \(like "\*\/30 \* \* \* \* \*"\) or a nickname like "@daily", got "0 0 0 1 1 \* 2030"$/m,
      ],
      [['--to', 'docs', '--subject', 'two\nlines', '--cron', '@daily'], /--subject: expected one line/],
    ];
    for (const [args, message] of refusals) {
      const refused = await fed(root, 'schedule', 'add', ...args);
      expect(refused.code, `${args.join(' ')}: ${refused.stdout}${refused.stderr}`).toBe(2);
      expect(refused.stderr).toMatch(message);
      expect(readFileSync(config, 'utf8')).toBe(before);
    }
    expect(
      (
        await fed(
          root,
          'schedule',
          'add',
          '--to',
          'docs',
          '--subject',
          'Nightly docs',
          '--cron',
          '0 3 * * *',
          '--tz',
          'Europe/Paris',
        )
      ).code,
    ).toBe(0);
    const twice = await fed(
      root,
      'schedule',
      'add',
      '--to',
      'docs',
      '--subject',
      'Other',
      '--cron',
      '@daily',
      '--id',
      'nightly-docs',
    );
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('a schedule "nightly-docs" exists already');
    const listed = await fed(root, 'schedule', 'list');
    expect(listed.stdout).toMatch(
      /nightly-docs\s+docs\s+on "0 3 \* \* \*" \(Europe\/Paris\)\s+\d{4}-\d\d-\d\dT0[12]:00:00\.000Z\s+never\s+Nightly docs/,
    );
    const unknown = await fed(root, 'schedule', 'remove', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no schedule "nope" in federate.config.json (its schedules: nightly-docs)');
    expect((await fed(root, 'schedule', 'remove', 'nightly-docs')).code).toBe(0);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toEqual(JSON.parse(before));
  }, 120_000);
});
