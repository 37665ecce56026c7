import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeRegistryStatus } from 'fed/testing';
import { openFederation } from 'fed';
import { runFed, type FedOptions } from '../helpers/fed-cli.js';
import { entries, signalFederation, type SignalFederation } from '../helpers/signal-federation.js';

async function fedIn(fed: SignalFederation, args: readonly string[], options: FedOptions = {}) {
  return runFed(['--root', fed.root, ...args], options);
}

/** Every file in every signal box of the federation, to prove that a refused command wrote nothing. */
function allBoxes(fed: SignalFederation): string[] {
  return ['meta', 'docs', 'old'].flatMap((id) => {
    const ws = fed.team(id);
    return [...entries(ws.inbox).map((f) => `${id}/inbox/${f}`), ...entries(ws.outbox).map((f) => `${id}/outbox/${f}`)];
  });
}

/** Bad input to `fed signal send` through the built CLI: exit 2, a message that says what to fix, nothing written. */
describe('fed signal send refuses bad input (built CLI)', () => {
  it.each([
    ['an unknown recipient', ['--to', 'ghost'], {}, /recipient \(--to\): unknown team "ghost"/],
    [
      'an empty recipient (no onboarding hint with a blank name)',
      ['--to', ''],
      {},
      /recipient \(--to\): no team named: the name is empty \(registered teams: docs, old\); give a team id$/m,
    ],
    [
      'an unknown sender taken from $FED_TEAM',
      [],
      { env: { FED_TEAM: 'ghost' } },
      /sender \(--from\): unknown team "ghost"/,
    ],
    [
      'a team sending as meta (FED_TEAM names the caller)',
      ['--from', 'meta'],
      { env: { FED_TEAM: 'docs' } },
      /sender \(--from\): this command runs as team "docs" .*cannot act as "meta"/,
    ],
    ['an archived recipient', ['--to', 'old'], {}, /team "old" is archived/],
    [
      'an unknown type',
      ['--type', 'memo'],
      {},
      /argument 'memo' is invalid. Allowed choices are directive, question, report, alert/,
    ],
    [
      'an empty subject',
      ['--subject', ''],
      {},
      /subject: expected a subject with at least one non-space character, got an empty string/,
    ],
    ['an id that is not a UUID', ['--id', '42'], {}, /id: expected a UUID such as .*, got "42"/],
    ['both --body and --body-file', ['--body', 'a', '--body-file', '-'], {}, /either --body or --body-file, not both/],
    [
      'a body file that does not exist',
      ['--body-file', 'missing.md'],
      {},
      /--body-file \S*missing\.md cannot be read \(ENOENT\)/,
    ],
    ['a body over 1 MiB', ['--body-file', '-'], { input: 'x'.repeat(1024 * 1024 + 1) }, /over the 1048576-byte limit/],
    [
      'a body that is not UTF-8 text (its bytes would be replaced)',
      ['--body-file', '-'],
      { input: Buffer.from([0xff, 0xfe, 0x00, 0x62, 0x61, 0x64]) },
      /--body-file -: standard input is not UTF-8 text, and a signal's body is text; convert it/,
    ],
  ])('refuses %s: exit 2, a clear message, nothing written', async (_what, change, options, message) => {
    const fed = await signalFederation(['docs', 'old']);
    await writeRegistryStatus(openFederation(fed.root), 'old', { type: 'ARCHIVE' }, { durable: false });
    const base: Record<string, string> = { '--to': 'docs', '--type': 'report', '--subject': 'x' };
    for (let i = 0; i < change.length; i += 2) base[change[i]!] = change[i + 1]!;
    const args = Object.entries(base).flat();
    const before = allBoxes(fed);
    const result = await fedIn(fed, ['signal', 'send', ...args], { cwd: fed.root, ...options });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect(allBoxes(fed)).toEqual(before);
  });

  it('refuses a body file that is not UTF-8 text, naming the file: exit 2, nothing written', async () => {
    const fed = await signalFederation(['docs', 'old']);
    const file = join(fed.root, 'body.bin');
    writeFileSync(file, Buffer.from([0x68, 0x69, 0xc3]));
    const before = allBoxes(fed);
    const result = await fedIn(
      fed,
      ['signal', 'send', '--to', 'docs', '--type', 'report', '--subject', 'x', '--body-file', 'body.bin'],
      { cwd: fed.root },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--body-file ${file} is not UTF-8 text`);
    expect(allBoxes(fed)).toEqual(before);
  });

  it("refuses, in a team's workspace, a sender other than that team: exit 2, nothing written", async () => {
    const fed = await signalFederation(['docs', 'api', 'old']);
    const before = allBoxes(fed);
    for (const from of ['meta', 'api']) {
      const result = await runFed(
        ['signal', 'send', '--from', from, '--to', 'docs', '--type', 'directive', '--subject', 'x'],
        { cwd: fed.team('docs').workspace },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`runs as team "docs" .*cannot act as "${from}"`));
      expect(allBoxes(fed)).toEqual(before);
    }
    // Its own name, given or implied, is fine.
    const own = await runFed(
      ['signal', 'send', '--from', 'docs', '--to', 'meta', '--type', 'report', '--subject', 'y'],
      {
        cwd: fed.team('docs').workspace,
      },
    );
    expect(own, own.stderr).toMatchObject({ code: 0 });
  });

  it('refuses a recipient whose inbox is a file: exit 2, naming it, and no delivery record of the refused id', async () => {
    const fed = await signalFederation(['docs']);
    const inbox = fed.team('docs').inbox;
    rmSync(inbox, { recursive: true });
    writeFileSync(inbox, 'not a folder');
    const delivery = join(fed.root, '.fed', 'delivery');
    const before = entries(delivery);
    const result = await fedIn(fed, ['signal', 'send', '--to', 'docs', '--type', 'report', '--subject', 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${inbox}: a part of it is a file where fed expects a directory`);
    expect(entries(delivery)).toEqual(before);
  });

  it('refuses a missing required option with usage help (exit 2)', async () => {
    const fed = await signalFederation(['docs']);
    const result = await fedIn(fed, ['signal', 'send', '--to', 'docs', '--type', 'report']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/required option '--subject <text>' not specified/);
    expect(entries(fed.team('docs').inbox)).toEqual([]);
  });
});
