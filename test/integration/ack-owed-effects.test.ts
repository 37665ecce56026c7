import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, runActors, sendSignal } from 'fed';
import { FED_DIR, getTeam, JOURNAL_FILE, readEnvelope, readRegistry, STATE_DIR } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { expectExactlyOnce, readWholeJournal } from '../helpers/lifecycle-checks.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The kill point: the built CLI SIGKILLs itself when it opens the team's lifecycle journal to append. */
const KILL_AT_JOURNAL_APPEND = {
  NODE_OPTIONS: `--require ${fileURLToPath(new URL('../fixtures/kill-at-open.cjs', import.meta.url))}`,
  FED_TEST_KILL_AT_OPEN: join(FED_DIR, STATE_DIR, JOURNAL_FILE),
};

/**
 * A team whose mission is applied, with three more signals waiting — the last a pause, whose transition
 * owes a journal line, a report to meta and the registry status — and `fed signal ack --all` killed after
 * it saved the envelope and wrote the acks, before the journal lines and reports that write owes.
 */
async function killedAckAll(): Promise<{ root: string; location: string; ids: string[] }> {
  const root = tempDir();
  initFederation(root, {}, {});
  const team = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
  const send = async (subject: string) =>
    (await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject }, { durable: false })).message.id;
  const ids = [await send('Document the project')];
  await runActors(openFederation(root), { team: 'docs', once: true });
  ids.push(await send('also the API'), await send('and the CLI'), await send('pause'));
  const linesBefore = readWholeJournal(team.location).length;

  const killed = await runFed(['signal', 'ack', '--all', '--team', 'docs'], { cwd: root, env: KILL_AT_JOURNAL_APPEND });
  expect(killed.code, killed.stderr).toBeNull();
  // The kill landed where it should: the envelope was saved and the acks written, the journal owes lines.
  const envelope = readEnvelope(team.location)!;
  expect(envelope.seq).toBeGreaterThan(linesBefore);
  expect(readWholeJournal(team.location)).toHaveLength(linesBefore);
  expect(envelope.pendingReports.length).toBeGreaterThan(0);
  return { root, location: team.location, ids };
}

describe('a killed fed signal ack --all leaves owed effects that the next command settles once', () => {
  it('re-running fed signal ack --all appends the owed journal lines and sends the owed reports, each once', async () => {
    const { root, location, ids } = await killedAckAll();
    for (let run = 0; run < 2; run++) {
      const again = await runFed(['signal', 'ack', '--all', '--team', 'docs'], { cwd: root });
      expect(again.code, again.stderr).toBe(0);
      expectExactlyOnce(root, location, ids);
      expect(getTeam(readRegistry(root), 'docs').status).toBe('paused');
    }
  }, 60_000);

  it('fed doctor names what is owed, and fed doctor --fix performs it once', async () => {
    const { root, location, ids } = await killedAckAll();
    const check = await runFed(['doctor', '--json'], { cwd: root });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain('still owes');
    const fixed = await runFed(['doctor', '--fix'], { cwd: root });
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expectExactlyOnce(root, location, ids);
    expect(getTeam(readRegistry(root), 'docs').status).toBe('paused');
    const after = await runFed(['doctor'], { cwd: root });
    expect(after.code, after.stdout).toBe(0);
    expectExactlyOnce(root, location, ids);
  }, 60_000);
});
