import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { packageRoot, type BoardView } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { startServing } from '../helpers/fed-ui.js';
import { scriptCacheProbe } from '../helpers/script-cache-probe.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `fed ui` runs with a small young generation (src/infra/v8/young-generation.ts): on a Node with
 * `process.execve` (22.15 and later) the `fed` bin runs the command again in the same process with
 * `--max-semi-space-size=4`, so its peak RSS over a large federation stays lower; a size node was given
 * already is kept, and an older Node runs the command as it is. Seen from outside, as `ps` sees it: the
 * process's command line.
 */
const FLAG = '--max-semi-space-size=4';
const CLI_BUNDLE = join(packageRoot(), 'dist/bin/cli/main.cjs');
const canExecve = typeof (process as { execve?: unknown }).execve === 'function';

async function federation(): Promise<string> {
  const root = tempDir();
  expect((await runFed(['init', '--root', root])).code).toBe(0);
  expect((await runFed(['--root', root, 'team', 'onboard', 'docs'])).code).toBe(0);
  return root;
}

/** `fed ui`'s arguments to node, after node's own, as fedUi starts it. */
const uiArgs = (root: string) => [FED_BIN, '--root', root, 'ui', '--port', '0'];

/** `node <nodeArgs> fed ui` serving `root`, with `env`; stopped when the test ends. */
async function fedUi(root: string, nodeArgs: readonly string[] = [], env: NodeJS.ProcessEnv = {}) {
  const { FED_ROOT: _root, FED_TEAM: _team, NODE_OPTIONS: _options, ...inherited } = process.env;
  const ui = await startServing([...nodeArgs, ...uiArgs(root)], {
    cwd: root,
    env: { ...inherited, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false', ...env },
  });
  onTestFinished(() => ui.stop());
  return ui;
}

/** The command line of process `pid`, as the kernel holds it (what `ps` shows). */
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);

describe('fed ui: a small young generation', () => {
  it(
    canExecve
      ? 'runs again in the same process with the flag, serves the board, and its code cache is accepted'
      : 'runs as it is on a Node without process.execve',
    async () => {
      const root = await federation();
      const probe = scriptCacheProbe();
      const env = { FED_CODE_CACHE: tempDir(), ...probe.env };

      for (const cached of [false, true]) {
        const ui = await fedUi(root, [], env);
        // The pid the test started is the one serving: the command ran again in it, not in a child.
        expect(commandLine(ui.child.pid!)).toEqual([process.execPath, ...(canExecve ? [FLAG] : []), ...uiArgs(root)]);
        const exchanged = await fetch(ui.url, { redirect: 'manual' });
        const cookie = exchanged.headers.get('set-cookie')!.split(';')[0]!;
        const board = (await (await fetch(`${ui.origin}/api/board`, { headers: { cookie } })).json()) as BoardView;
        expect(board.teams.map((team) => team.id)).toEqual(['docs']);
        await ui.stop();
        expect(ui.child.exitCode, ui.output()).toBe(0);
        // The first start leaves its code cache, made under the flag; the second is handed it and V8 takes it.
        expect(probe.compilesOf(CLI_BUNDLE)).toEqual([{ file: CLI_BUNDLE, cached, rejected: false }]);
      }
    },
    60_000,
  );

  it('keeps a size node was given (on its command line in either spelling, or in NODE_OPTIONS) and an inspector', async () => {
    const root = await federation();
    const given = await fedUi(root, ['--max_semi_space_size=8']);
    expect(commandLine(given.child.pid!)).toEqual([process.execPath, '--max_semi_space_size=8', ...uiArgs(root)]);
    const fromOptions = await fedUi(root, [], { NODE_OPTIONS: '--max-semi-space-size=8' });
    expect(commandLine(fromOptions.child.pid!)).not.toContain(FLAG);
    // Nor is a process a debugger may be attached to run again: it would lose the debugger.
    const inspected = await fedUi(root, ['--inspect=127.0.0.1:0']);
    expect(commandLine(inspected.child.pid!)).not.toContain(FLAG);
    // Other node arguments go along with the flag.
    const other = await fedUi(root, ['--no-deprecation']);
    expect(commandLine(other.child.pid!).slice(1, 3)).toEqual([
      '--no-deprecation',
      ...(canExecve ? [FLAG] : [FED_BIN]),
    ]);
  }, 60_000);
});
