import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchTeam, openFederation } from 'fed';
import {
  appendJournalLines,
  appendJsonLine,
  appendLearningEntries,
  CheckedRootFolders,
  FileFederationJournal,
  getTeam,
  openForAppend,
  openInspectionLog,
  readRegistry,
  workspacePaths,
} from 'fed/testing';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A codebase file an agent may only read, with a link to it planted at `link`. */
function plantLink(link: string): { target: string; content: string } {
  const target = join(tempDir(), 'codebase.ts');
  const content = 'export const untouched = true;\n';
  writeFileSync(target, content);
  mkdirSync(dirname(link), { recursive: true });
  rmSync(link, { force: true });
  symlinkSync(target, link);
  return { target, content };
}

function plantFifo(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true });
  const made = spawnSync('mkfifo', [path]);
  expect(made.status).toBe(0);
}

const refusal = (path: string, kind: RegExp) =>
  expect.objectContaining({ code: 'FILE_NOT_REGULAR', file: path, message: expect.stringMatching(kind) as unknown });

describe('files fed appends to are never followed through links', () => {
  it('openForAppend refuses a symbolic link, a FIFO and a directory, and creates a missing file', () => {
    const dir = tempDir();
    const link = join(dir, 'link.log');
    const { target, content } = plantLink(link);
    expect(() => openForAppend(link)).toThrow(/link\.log is a symbolic link, not a regular file/);
    expect(readFileSync(target, 'utf8')).toBe(content);
    const fifo = join(dir, 'fifo.log');
    plantFifo(fifo);
    expect(() => openForAppend(fifo)).toThrow(/fifo\.log is a named pipe \(FIFO\)/);
    mkdirSync(join(dir, 'dir.log'));
    expect(() => openForAppend(join(dir, 'dir.log'))).toThrow(/dir\.log is a directory/);
    expect(() => openForAppend(link)).toThrow(expect.objectContaining({ code: 'FILE_NOT_REGULAR', file: link }));
    const fresh = join(dir, 'fresh.log');
    expect(typeof openForAppend(fresh)).toBe('number');
    expect(existsSync(fresh)).toBe(true);
  });

  it('a launch refuses an agent.log that is a link to a codebase file, and writes nothing through it', async () => {
    const { root, config } = await federationWithMission();
    const workspace = getTeam(readRegistry(root), 'docs').location;
    const { target, content } = plantLink(workspacePaths(workspace).agentLog);
    await expect(
      launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 }),
    ).rejects.toThrow(refusal(workspacePaths(workspace).agentLog, /symbolic link/));
    expect(readFileSync(target, 'utf8')).toBe(content);
  });

  it('a launch refuses a FIFO at agent.log at once instead of hanging', async () => {
    const { root, config } = await federationWithMission();
    const workspace = getTeam(readRegistry(root), 'docs').location;
    plantFifo(workspacePaths(workspace).agentLog);
    await expect(
      launchTeam(openFederation(root), 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 }),
    ).rejects.toThrow(/agent\.log is a named pipe \(FIFO\)/);
  }, 15_000);

  it('the run journal, the federation journal, a lifecycle journal, the learning log and an inspection log refuse links', async () => {
    const workspace = tempDir();
    const paths = workspacePaths(workspace);
    const runs = plantLink(paths.runsJournal);
    expect(() => appendJsonLine(paths.runsJournal, { run: 1 })).toThrow(/runs\.jsonl is a symbolic link/);
    expect(readFileSync(runs.target, 'utf8')).toBe(runs.content);

    const root = tempDir();
    const journal = new FileFederationJournal(root, new CheckedRootFolders(root));
    const federation = plantLink(journal.location);
    expect(() => appendJsonLine(journal.location, { kind: 'x' })).toThrow(/journal\.jsonl is a symbolic link/);
    expect(readFileSync(federation.target, 'utf8')).toBe(federation.content);

    const lifecycle = plantLink(paths.journal);
    const line = { seq: 1, at: new Date().toISOString(), from: 'a', to: 'b', event: 'E' };
    await expect(appendJournalLines(workspace, [line as never])).rejects.toThrow(/is a symbolic link/);
    expect(readFileSync(lifecycle.target, 'utf8')).toBe(lifecycle.content);

    const learning = plantLink(paths.learningLog);
    expect(() =>
      appendLearningEntries(paths.learningLog, [
        {
          timestamp: new Date().toISOString(),
          domain: 'docs',
          category: 'gap',
          content: 'x',
          tags: [],
          confidence: 'low',
        },
      ]),
    ).toThrow(/learning-log\.jsonl is a symbolic link/);
    expect(readFileSync(learning.target, 'utf8')).toBe(learning.content);

    const inspection = join(workspace, 'inspect.jsonl');
    const planted = plantLink(inspection);
    expect(() => openInspectionLog(inspection)).toThrow(/inspect\.jsonl is a symbolic link/);
    expect(readFileSync(planted.target, 'utf8')).toBe(planted.content);
  });
});

describe('the lifecycle envelope is never read through a link', () => {
  it('a link at lifecycle.json (to a file, or to itself) is refused by the read, naming it; its version is the link', async () => {
    const { root } = await federationWithMission();
    const fed = openFederation(root);
    const team = getTeam(readRegistry(root), 'docs');
    const envelope = workspacePaths(team.location).envelope;
    const unreadableLink = (file: string) =>
      expect.objectContaining({
        code: 'FILE_UNREADABLE',
        file,
        message: expect.stringMatching(/a symbolic link/) as unknown,
      });
    plantLink(envelope);
    await expect(fed.backend.lifecycles.read(team)).rejects.toThrow(unreadableLink(envelope));
    rmSync(envelope);
    symlinkSync(envelope, envelope);
    await expect(fed.backend.lifecycles.version(team)).resolves.toEqual(expect.any(String));
    await expect(fed.backend.lifecycles.read(team)).rejects.toThrow(unreadableLink(envelope));
  });
});
