import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  DEFAULT_FEDERATION_REPORT,
  federationPaths,
  openFileBackend,
  RUNS_JOURNAL_FILE,
  updateRegistryIn,
  workspacePaths,
} from 'fed/testing';
import { type FederationChange, initFederation, type RegistryEntry } from 'fed';
import { tempDir } from '../helpers/temp-dir.js';

/** file-signal-v1's change feed on real folders, in one process: what the CLI-driven suite cannot reach cheaply. */

const entry = (root: string, domain: string): RegistryEntry => ({
  domain,
  domainId: domain,
  archetypeId: 'deliverable',
  placementType: 'directory',
  onboardedAt: new Date().toISOString(),
  location: join(root, '.fed', 'teams', domain),
  status: 'active',
});

async function federation(teams: number) {
  const root = tempDir('fed-file-changes-');
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  const backend = openFileBackend(root);
  const entries = Array.from({ length: teams }, (_, i) => entry(root, `team-${i}`));
  for (const each of entries) mkdirSync(each.location, { recursive: true });
  await updateRegistryIn(backend.registry, (registry) => ({ ...registry, teams: entries }), { durable: false });
  const changes: FederationChange[] = [];
  const started = performance.now();
  const watch = backend.changes.watch((change) => changes.push(change));
  const watchMs = performance.now() - started;
  onTestFinished(() => watch.close());
  const folders = () => (watch as unknown as { watchedFolders: number }).watchedFolders;
  const heard = (want: FederationChange) =>
    vi.waitFor(() => expect(changes).toContainEqual(want), { timeout: 10_000, interval: 10 });
  return { root, backend, entries, changes, watch, watchMs, folders, heard };
}

describe("file-signal-v1's change feed", () => {
  it('hears runs, transcripts and the deliverable in folders created after the watch started', async () => {
    const { entries, changes, heard } = await federation(1);
    const team = entries[0]!;
    const paths = workspacePaths(team.location);
    mkdirSync(paths.logs, { recursive: true });
    appendFileSync(join(paths.logs, RUNS_JOURNAL_FILE), '{}\n');
    await heard({ scope: 'team', team: team.domain, what: 'runs' });
    changes.length = 0;
    mkdirSync(paths.runTranscripts, { recursive: true });
    await heard({ scope: 'team', team: team.domain, what: 'runs' });
    changes.length = 0;
    appendFileSync(join(paths.runTranscripts, 'run-1.jsonl'), 'line\n');
    await heard({ scope: 'team', team: team.domain, what: 'runs' });
    writeFileSync(join(team.location, 'deliverable.md'), '# Doc\n');
    await heard({ scope: 'team', team: team.domain, what: 'deliverable' });
    // The agent's log is not a run record: it alone tells nothing.
    changes.length = 0;
    appendFileSync(paths.agentLog, 'noise\n');
    writeFileSync(join(team.location, 'other.md'), 'x');
    mkdirSync(paths.state, { recursive: true });
    writeFileSync(join(paths.state, 'lifecycle.json'), '{}');
    await heard({ scope: 'team', team: team.domain, what: 'lifecycle' });
    expect(changes).toEqual([{ scope: 'team', team: team.domain, what: 'lifecycle' }]);
  });

  it('hears a lifecycle whose state folder was replaced by rename (a retry keeps the old one as history)', async () => {
    const { entries, changes, heard } = await federation(1);
    const paths = workspacePaths(entries[0]!.location);
    mkdirSync(paths.state, { recursive: true });
    writeFileSync(paths.envelope, '{}');
    await heard({ scope: 'team', team: 'team-0', what: 'lifecycle' });
    changes.length = 0;
    renameSync(paths.state, join(entries[0]!.location, 'old-state'));
    mkdirSync(paths.state);
    await heard({ scope: 'team', team: 'team-0', what: 'lifecycle' });
    changes.length = 0;
    writeFileSync(paths.journal, '{}\n');
    await heard({ scope: 'team', team: 'team-0', what: 'lifecycle' });
  });

  it("hears the federation's own files: the plan, the report and the collector's state, nothing else at the root", async () => {
    const { root, changes, heard } = await federation(0);
    const paths = federationPaths(root);
    writeFileSync(paths.plan, '{}');
    await heard({ scope: 'federation' });
    changes.length = 0;
    writeFileSync(join(root, DEFAULT_FEDERATION_REPORT), '# Report\n');
    await heard({ scope: 'federation' });
    changes.length = 0;
    writeFileSync(paths.collectorState, '{}');
    await heard({ scope: 'federation' });
    changes.length = 0;
    writeFileSync(join(root, 'notes.md'), 'x');
    writeFileSync(join(paths.fedDir, 'other.json'), '{}');
    writeFileSync(paths.plan, '{"again":true}');
    await heard({ scope: 'federation' });
    expect(changes).toEqual([{ scope: 'federation' }]);
  });

  it("keeps 1,000 teams to a few thousand folders, and closes a removed team's watchers", async () => {
    const { backend, folders, heard, watchMs } = await federation(1000);
    console.info(`1,000 teams: ${folders()} folders watched, watch() took ${watchMs.toFixed(0)} ms`);
    // Per team: its workspace and the nearest existing folder of each runtime folder it lacks (shared).
    expect(folders()).toBeLessThanOrEqual(7 * 1000 + 10);
    const before = folders();
    await updateRegistryIn(backend.registry, (registry) => ({ ...registry, teams: registry.teams.slice(0, 500) }), {
      durable: false,
    });
    await heard({ scope: 'registry' });
    expect(folders()).toBeLessThan(before - 400);
  }, 60_000);

  it('closes every watcher on close', async () => {
    const { watch, folders } = await federation(3);
    expect(folders()).toBeGreaterThan(0);
    await watch.close();
    expect(folders()).toBe(0);
  });
});
