import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, runActors, sendSignal } from 'fed';
import { FED_DIR, JOURNAL_FILE, readEnvelope, STATE_DIR } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { expectExactlyOnce, readWholeJournal } from '../helpers/lifecycle-checks.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The built CLI freezes itself (SIGSTOP) when it opens the team's lifecycle journal to append: alive, in its section. */
const STOP_AT_JOURNAL_APPEND = {
  NODE_OPTIONS: `--require ${fileURLToPath(new URL('../fixtures/kill-at-open.cjs', import.meta.url))}`,
  FED_TEST_KILL_AT_OPEN: join(FED_DIR, STATE_DIR, JOURNAL_FILE),
  FED_TEST_KILL_SIGNAL: 'SIGSTOP',
};

function stopped(pid: number): boolean {
  const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
  return state.startsWith('T');
}

describe('fed doctor beside a live command between its lifecycle write and what the write owes', () => {
  it('reports nothing, --fix neither waits for it nor does its work, and the command completes it once', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const team = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const send = async (subject: string) =>
      (await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject }, { durable: false })).message
        .id;
    const ids = [await send('Document the project')];
    await runActors(openFederation(root), { team: 'docs', once: true });
    ids.push(await send('pause'));
    const linesBefore = readWholeJournal(team.location).length;

    const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
    const command = spawn(process.execPath, [FED_BIN, 'signal', 'ack', '--all', '--team', 'docs'], {
      cwd: root,
      env: { ...inherited, FED_TELEMETRY_ENABLED: 'false', ...STOP_AT_JOURNAL_APPEND },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => command.on('close', (code) => resolve(code)));
    try {
      await waitFor(() => stopped(command.pid!), 30_000, 'the ack to stop at its journal append');
      // Stopped where a kill would leave owed effects: the envelope saved, the journal not yet appended.
      expect(readEnvelope(team.location)!.seq).toBeGreaterThan(linesBefore);
      expect(readWholeJournal(team.location)).toHaveLength(linesBefore);

      const check = await runFed(['doctor'], { cwd: root });
      expect(check.stdout).not.toContain('still owes');
      expect(check.code, check.stdout).toBe(0);
      const fix = await runFed(['doctor', '--fix'], { cwd: root, timeoutMs: 20_000 });
      expect(fix.code, fix.stdout + fix.stderr).toBe(0);
      expect(readWholeJournal(team.location)).toHaveLength(linesBefore);
    } finally {
      command.kill('SIGCONT');
    }
    expect(await exited).toBe(0);
    expectExactlyOnce(root, team.location, ids);
    const after = await runFed(['doctor'], { cwd: root });
    expect(after.code, after.stdout).toBe(0);
  }, 90_000);
});
