import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { type CodebaseBaseline, packageRoot } from 'fed/testing';
import { describe, expect, it } from 'vitest';
import {
  captureCodebase,
  codebaseChanges,
  describeCodebaseChanges,
  recaptureCodebase,
} from '../../../src/engine/deliverable/codebase-guard.js';
import { withGitAwaitingEventLoop } from '../../helpers/git-awaiting-event-loop.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The deliverable team's read-only rule, on real files and a real git: what a capture records and which
 * changes between two captures it names (src/engine/deliverable/codebase-guard.ts).
 */

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** A git repository with one commit of `files`. */
function repoWith(files: Record<string, string>): string {
  const dir = tempDir();
  gitIn(dir, 'init', '-q', '-b', 'main');
  write(dir, files);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '-q', '-m', 'start');
  return dir;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

describe('a codebase outside git: every file by size and mtime', () => {
  it('records each file by its path, skipping every .fed, .git and node_modules folder; the time of the capture', async () => {
    const dir = tempDir();
    write(dir, {
      'a.txt': 'abc',
      'src/b.ts': 'hello',
      '.fed/teams/x/deliverable.md': 'mine',
      'node_modules/p/index.js': 'x',
      '.git/HEAD': 'not a repository',
      'deep/.fed/skipped.txt': 'k',
      'deep/kept.txt': 'k',
    });
    utimesSync(join(dir, 'a.txt'), 1_000, 1_000);
    const now = new Date('2026-11-25T08:00:00.000Z');
    const baseline = await captureCodebase(dir, {}, now);
    expect(baseline.kind).toBe('files');
    expect(baseline.head).toBeNull();
    expect(baseline.codebase).toBe(dir);
    expect(baseline.capturedAt).toBe('2026-11-25T08:00:00.000Z');
    expect(baseline).not.toHaveProperty('worktree');
    expect(Object.keys(baseline.entries).sort()).toEqual(['a.txt', 'deep/kept.txt', 'src/b.ts']);
    expect(baseline.entries['a.txt']).toBe('3:1000000');
    expect(baseline.entries['src/b.ts']).toMatch(/^5:\d+(\.\d+)?$/);
  });

  it('names a file changed, added, removed or only touched; nothing when nothing changed', async () => {
    const dir = tempDir();
    write(dir, { 'same.txt': 'same', 'edit.txt': 'one', 'gone.txt': 'x', 'touch.txt': 't' });
    const before = await captureCodebase(dir);
    expect(codebaseChanges(before, await recaptureCodebase(before))).toEqual([]);
    writeFileSync(join(dir, 'edit.txt'), 'three');
    rmSync(join(dir, 'gone.txt'));
    write(dir, { 'sub/new.txt': 'n' });
    utimesSync(join(dir, 'touch.txt'), 2_000, 2_000);
    expect(codebaseChanges(before, await recaptureCodebase(before))).toEqual([
      'edit.txt',
      'gone.txt',
      'sub/new.txt',
      'touch.txt',
    ]);
  });

  it('a link to nothing is recorded as missing, not a failed capture', async () => {
    const dir = tempDir();
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    expect((await captureCodebase(dir)).entries).toEqual({ dangling: 'missing' });
  });
});

describe('a codebase in git: HEAD and every path git status reports, by content', () => {
  it('a clean checkout is its HEAD and no entry', async () => {
    const dir = repoWith({ 'a.txt': 'a' });
    const baseline = await captureCodebase(dir);
    expect(baseline.kind).toBe('git');
    expect(baseline.head).toBe(gitIn(dir, 'rev-parse', 'HEAD'));
    expect(baseline.entries).toEqual({});
  });

  it('a repository with no commit yet has no HEAD; its untracked files are entries', async () => {
    const dir = tempDir();
    gitIn(dir, 'init', '-q');
    write(dir, { 'dir/new.txt': 'n' });
    const baseline = await captureCodebase(dir);
    expect(baseline.kind).toBe('git');
    expect(baseline.head).toBeNull();
    expect(baseline.entries).toEqual({ 'dir/new.txt': `??:${sha1('n')}` });
  });

  it('records each change with its status and a hash of its content; a deleted file is unreadable', async () => {
    const dir = repoWith({ 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c' });
    write(dir, { 'a.txt': 'A', 'nested/deeper/u.txt': 'u', '.fed/teams/t/deliverable.md': 'ours' });
    rmSync(join(dir, 'b.txt'));
    gitIn(dir, 'mv', 'c.txt', 'moved.txt');
    expect((await captureCodebase(dir)).entries).toEqual({
      'a.txt': ` M:${sha1('A')}`,
      'b.txt': ' D:unreadable',
      'moved.txt': `R :${sha1('c')}`,
      'nested/deeper/u.txt': `??:${sha1('u')}`,
    });
  });

  it('a file already dirty and edited again is a change; so is a commit (HEAD, by its first 12 characters)', async () => {
    const dir = repoWith({ 'a.txt': 'a' });
    writeFileSync(join(dir, 'a.txt'), 'dirty');
    const before = await captureCodebase(dir);
    writeFileSync(join(dir, 'a.txt'), 'dirtier');
    expect(codebaseChanges(before, await recaptureCodebase(before))).toEqual(['a.txt']);
    const head = before.head!;
    gitIn(dir, 'commit', '-q', '-am', 'edit');
    const after = await recaptureCodebase(before);
    expect(codebaseChanges(before, after)).toEqual([
      `HEAD (${head.slice(0, 12)} → ${after.head!.slice(0, 12)})`,
      'a.txt',
    ]);
  });

  it('a codebase below the top of its repository watches only its own folder, by paths from the top', async () => {
    const dir = repoWith({ 'pkg/a.txt': 'a', 'other/b.txt': 'b' });
    write(dir, { 'pkg/a.txt': 'A', 'other/b.txt': 'B' });
    expect((await captureCodebase(join(dir, 'pkg'))).entries).toEqual({ 'pkg/a.txt': ` M:${sha1('A')}` });
  });
});

describe("the federation's own config file is not part of the codebase", () => {
  // `fed schedule add` and the dashboard rewrite it while teams run; the agent's sandbox keeps it read-only.
  it('in git, committed or not, at the root; a config file deeper down is still watched', async () => {
    const dir = repoWith({ 'federate.config.json': '{}', 'a.txt': 'a', 'sub/federate.config.json': '{}' });
    const before = await captureCodebase(dir);
    write(dir, { 'federate.config.json': '{"schedules":[]}', 'sub/federate.config.json': '{"x":1}' });
    expect(codebaseChanges(before, await captureCodebase(dir))).toEqual(['sub/federate.config.json']);
    // A root below the top of its repository: its own config, by the path from the top.
    const nested = repoWith({ 'pkg/federate.config.json': '{}', 'pkg/b.txt': 'b' });
    const inner = await captureCodebase(join(nested, 'pkg'));
    write(nested, { 'pkg/federate.config.json': '{"schedules":[]}', 'pkg/b.txt': 'B' });
    expect(codebaseChanges(inner, await captureCodebase(join(nested, 'pkg')))).toEqual(['pkg/b.txt']);
  });

  it('outside git', async () => {
    const dir = tempDir();
    write(dir, { 'federate.config.json': '{}', 'a.txt': 'a' });
    const before = await captureCodebase(dir);
    expect(Object.keys(before.entries)).toEqual(['a.txt']);
    write(dir, { 'federate.config.json': '{"schedules":[]}' });
    expect(codebaseChanges(before, await captureCodebase(dir))).toEqual([]);
  });
});

describe('a worktree team: its checkout watched too, but for its own files', () => {
  it('prefixes the worktree’s paths, leaves out the ignored ones, and names both HEADs once they differ', async () => {
    const dir = repoWith({ 'a.txt': 'a' });
    const tree = join(dir, '.fed', 'teams', 'coder', 'tree');
    gitIn(dir, 'worktree', 'add', '-q', '-b', 'coder', tree);
    const main = gitIn(dir, 'rev-parse', 'HEAD');
    write(tree, { 'a.txt': 'edited', 'deliverable.md': 'ours' });
    const baseline = await captureCodebase(dir, { worktree: tree, ignored: ['deliverable.md'] });
    expect(baseline.worktree).toBe(tree);
    expect(baseline.ignored).toEqual(['deliverable.md']);
    // Both at the same commit: one HEAD.
    expect(baseline.head).toBe(main);
    expect(baseline.entries).toEqual({ '.fed/teams/coder/tree/a.txt': ` M:${sha1('edited')}` });

    gitIn(tree, 'commit', '-q', '-am', 'work');
    const after = await recaptureCodebase(baseline);
    const treeHead = gitIn(tree, 'rev-parse', 'HEAD');
    expect(after.head).toBe(`${main} ${treeHead}`);
    expect(after.ignored).toEqual(['deliverable.md']);
    expect(codebaseChanges(baseline, after)).toEqual([
      '.fed/teams/coder/tree/a.txt',
      `HEAD (${main.slice(0, 12)} → ${`${main} ${treeHead}`.slice(0, 12)})`,
    ]);
  });

  it('a checkout with no commit names its HEAD as none', async () => {
    const dir = repoWith({ 'a.txt': 'a' });
    const tree = tempDir();
    gitIn(tree, 'init', '-q');
    const baseline = await captureCodebase(dir, { worktree: tree });
    expect(baseline.head).toBe(`${gitIn(dir, 'rev-parse', 'HEAD')} none`);
    expect(baseline.ignored).toEqual([]);
    const bare = tempDir();
    expect((await captureCodebase(bare, { worktree: dir })).head).toBe(`none ${gitIn(dir, 'rev-parse', 'HEAD')}`);
  });
});

describe('what changed, told', () => {
  const capture = (head: string | null, entries: Record<string, string>): CodebaseBaseline => ({
    codebase: '/c',
    kind: 'git',
    head,
    entries,
    capturedAt: '2026-11-25T08:00:00.000Z',
  });

  it('a HEAD that appears or goes is named as none on its side', () => {
    expect(codebaseChanges(capture(null, {}), capture('0123456789abcdef', {}))).toEqual(['HEAD (none → 0123456789ab)']);
    expect(codebaseChanges(capture('0123456789abcdef', {}), capture(null, {}))).toEqual(['HEAD (0123456789ab → none)']);
  });

  it('every path on either side whose fingerprint differs, sorted', () => {
    expect(
      codebaseChanges(capture('h', { b: '1', a: '1', same: 's' }), capture('h', { c: '1', a: '2', same: 's' })),
    ).toEqual(['a', 'b', 'c']);
  });

  it('names at most 20 changes, and how many more there are', () => {
    const paths = Array.from({ length: 23 }, (_, i) => `f${String(i).padStart(2, '0')}`);
    expect(describeCodebaseChanges(paths.slice(0, 2))).toBe('codebase modified: f00, f01');
    expect(describeCodebaseChanges(paths.slice(0, 20))).toBe(`codebase modified: ${paths.slice(0, 20).join(', ')}`);
    expect(describeCodebaseChanges(paths)).toBe(`codebase modified: ${paths.slice(0, 20).join(', ')} and 3 more`);
  });
});

describe("the launcher's own output in the codebase (`fed launch > l.out`)", () => {
  for (const kind of ['git', 'files'] as const) {
    it(`is never a change (${kind}): the file stdout is open on, by device and inode — any other file still is`, async () => {
      const dir = kind === 'git' ? repoWith({ 'README.md': 'hi' }) : tempDir();
      if (kind === 'files') write(dir, { 'README.md': 'hi' });
      // What the shell does for `fed launch > l.out`: the file exists, empty, before fed starts.
      const fd = openSync(join(dir, 'l.out'), 'w');
      try {
        const { dev, ino } = fstatSync(fd);
        const before = await captureCodebase(dir, { launcherOutput: [`${dev}:${ino}`] });
        expect(Object.keys(before.entries)).not.toContain('l.out');
        writeSync(fd, 'launched docs\n'.repeat(100));
        expect(codebaseChanges(before, await recaptureCodebase(before))).toEqual([]);
        write(dir, { 'README.md': 'changed by the agent' });
        expect(codebaseChanges(before, await recaptureCodebase(before))).toEqual(['README.md']);
      } finally {
        closeSync(fd);
      }
    });
  }

  it('launcherOutputFiles names the files fd 1 and 2 are open on, and nothing for a pipe', () => {
    const dir = tempDir();
    const module = join(packageRoot(), 'dist', 'src', 'engine', 'deliverable', 'codebase-guard.js');
    const script = `import(${JSON.stringify(module)}).then((m) => console.error(JSON.stringify(m.launcherOutputFiles())))`;
    const out = openSync(join(dir, 'l.out'), 'w');
    try {
      const child = spawnSync(process.execPath, ['-e', script], { stdio: ['ignore', out, 'pipe'], encoding: 'utf8' });
      const { dev, ino } = fstatSync(out);
      expect(JSON.parse(child.stderr)).toEqual([`${dev}:${ino}`]);
    } finally {
      closeSync(out);
    }
  });
});

describe('the event loop while the codebase is captured', () => {
  it('runs: git works in a process of its own while the caller goes on (fed serve captures at every launch)', async () => {
    const dir = repoWith({ 'README.md': 'hi' });
    write(dir, { 'notes.md': 'untracked' });
    const baseline = await withGitAwaitingEventLoop(['status'], () => captureCodebase(dir));
    expect(baseline.kind).toBe('git');
    expect(baseline.entries).toEqual({ 'notes.md': `??:${sha1('untracked')}` });
  });
});
