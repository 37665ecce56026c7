import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { runCli } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

/** `fed <args>` in-process, run in `cwd` with `env`: its exit code and what it printed. */
async function fedIn(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' };
  const code = await runCli(args, {
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    terminal: (text) => void (out.stdout += text),
    env: { FED_TELEMETRY_ENABLED: 'false', ...env },
    cwd,
    isTTY: false,
  });
  return { code, ...out };
}

describe("a command run in a team's workspace is that team's, with or without --root / FED_ROOT", () => {
  it('cannot send as meta, and sends as the team by default', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    for (const domain of ['docs', 'api']) await onboardTeam(openFederation(root), { domain }, { durable: false });
    const workspace = join(root, '.fed', 'teams', 'docs');
    const send = ['signal', 'send', '--to', 'api', '--type', 'report', '--subject', 'p'];
    for (const [how, args, env] of [
      ['--root', ['--root', root], {}],
      ['FED_ROOT', [], { FED_ROOT: root }],
    ] as const) {
      const asMeta = await fedIn(join(workspace, '.fed'), [...args, ...send, '--from', 'meta'], env);
      expect(asMeta.code, how).toBe(2);
      expect(asMeta.stderr).toMatch(/this command runs as team "docs" .*cannot act as "meta"/);
      const sent = await fedIn(workspace, [...args, ...send, '--json'], env);
      expect(sent.code, `${how}: ${sent.stderr}`).toBe(0);
      expect(JSON.parse(sent.stdout)).toMatchObject({ message: { from: 'docs', to: 'api' } });
    }
    // From the root itself, the command is meta's, as always.
    const fromRoot = await fedIn(root, ['--root', root, ...send, '--json']);
    expect(JSON.parse(fromRoot.stdout)).toMatchObject({ message: { from: 'meta' } });
  });
});
