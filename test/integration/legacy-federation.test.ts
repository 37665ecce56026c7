import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { launchTeam, listSignals, openFederation, runActors, sendSignal, viewLifecycle } from 'fed';
import { getTeam, loadConfig, readRegistry, workspacePaths } from 'fed/testing';
import { fakeAgent } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Where the previous release made the fixture (test/fixtures/federation-0.1.0.md). */
const MADE_AT = '/tmp/ports-legacy/federation';
const FIXTURE = fileURLToPath(new URL('../fixtures/federation-0.1.0', import.meta.url));

/** A copy of the fixture federation in a fresh git repository, as if it had been made there. */
function legacyFederation(): string {
  const root = tempDir('fed-legacy-');
  cpSync(FIXTURE, root, { recursive: true });
  for (const file of ['.fed/team-registry.json', '.fed/teams/docs/.fed/team.json']) {
    writeFileSync(join(root, file), readFileSync(join(root, file), 'utf8').replaceAll(MADE_AT, root));
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.email=fed@test', '-c', 'user.name=fed test', 'commit', '-q', '--allow-empty', '-m', 'project');
  return root;
}

describe('a federation made by the previous release (fed 0.1.0)', () => {
  it('is read, sent to, consumed and launched unchanged through the ports', async () => {
    const root = legacyFederation();
    const docs = getTeam(readRegistry(root), 'docs');
    const inboxFiles = () => readdirSync(workspacePaths(docs.location).inbox).sort();
    const before = inboxFiles();

    // Read: its signals, their acknowledgments and its lifecycle, as that release wrote them.
    const inbox = await listSignals(openFederation(root), { team: 'docs' });
    expect(inbox.invalid).toEqual([]);
    expect(inbox.signals.map((s) => [s.message.subject, s.message.acknowledged])).toEqual([
      ['Document the API', true],
      ['When is it due', true],
      ['Which format', false],
    ]);
    expect((await listSignals(openFederation(root), { team: 'meta' })).signals.map((s) => s.message.subject)).toEqual([
      'Started',
    ]);
    expect((await listSignals(openFederation(root), { team: 'meta', box: 'outbox' })).signals).toHaveLength(3);
    const view = await viewLifecycle(openFederation(root), docs);
    expect(view).toMatchObject({
      state: 'preparing',
      mission: { subject: 'Document the API' },
      pending: [{ subject: 'Which format' }],
    });
    expect(view.recent.map((line) => line.event)).toEqual(['MISSION_ASSIGNED', 'QUESTION_RECEIVED']);

    // Send: the new signal lands beside the old ones under the same naming, nothing old is touched.
    const sent = await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'question', subject: 'Any blockers' },
      { durable: false },
    );
    expect(sent.file).toMatch(/^\d{4}-\d\d-\d\dT\d{6}Z-question-any-blockers\.json$/);
    expect(inboxFiles()).toEqual([...before, sent.file].sort());

    // Consume: the pending signals are applied after the old ones, the journal continues the old seq.
    await runActors(openFederation(root), { team: 'docs', once: true, durable: false });
    const journal = await openFederation(root).backend.lifecycles.journalTail(docs, 10);
    expect(journal.map((line) => [line.seq, line.event])).toEqual([
      [1, 'MISSION_ASSIGNED'],
      [2, 'QUESTION_RECEIVED'],
      [3, 'QUESTION_RECEIVED'],
      [4, 'QUESTION_RECEIVED'],
    ]);
    expect((await listSignals(openFederation(root), { team: 'docs', unacknowledged: true })).signals).toEqual([]);

    // Launch: the agent runs to completion on the old state.
    const result = await launchTeam(openFederation(root), 'docs', {
      config: loadConfig(root, {}).config,
      agent: fakeAgent('complete'),
      pollMs: 50,
    });
    expect(result).toMatchObject({ outcome: 'complete', state: 'complete' });
    expect((await viewLifecycle(openFederation(root), getTeam(readRegistry(root), 'docs'))).state).toBe('complete');
  });
});
