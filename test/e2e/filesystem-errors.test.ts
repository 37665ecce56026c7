import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { fileSystemErrorFor } from 'fed/testing';
import { runFed, type FedResult } from '../helpers/fed-cli.js';
import { skipWithout } from '../helpers/loud-skip.js';
import { tempDir } from '../helpers/temp-dir.js';
import { handOver, unprivilegedUser } from '../helpers/unprivileged-user.js';

/** Mounting needs root (tests run as root here); elsewhere these cases are skipped, saying why. */
function mountUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root, so no tmpfs or read-only bind mount can be made';
  const probe = mkdtempSync(join(tmpdir(), 'fed-mount-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'mount(8) is not permitted in this environment';
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

const noMount = mountUnavailable();
const MOUNT_SUITE = 'full-disk and read-only filesystem tests (need mount)';

function withMount<T>(args: readonly string[], dir: string, body: () => Promise<T>): Promise<T> {
  execFileSync('mount', [...args, dir], { stdio: 'ignore' });
  return body().finally(() => execFileSync('umount', ['-l', dir], { stdio: 'ignore' }));
}

function expectFedError(result: FedResult, code: number, message: RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toContain('unexpected error');
}

function fillDisk(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

describe('filesystem errors are fed errors, never stack traces', () => {
  it.skipIf(skipWithout(MOUNT_SUITE, noMount))(
    'a full disk: the send fails with exit 1, naming the path and what to do',
    async () => {
      const mountPoint = tempDir('fed-full-');
      await withMount(['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs'], mountPoint, async () => {
        const root = join(mountPoint, 'fed');
        mkdirSync(root);
        const fed = (...args: string[]) => runFed(['--root', root, ...args]);
        expect((await fed('init')).code).toBe(0);
        expect((await fed('team', 'onboard', 'docs')).code).toBe(0);
        fillDisk(mountPoint);
        const send = await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'work');
        expectFedError(send, 1, new RegExp(`^fed: ${root}/.*: the disk is full .*\\[ENOSPC\\]; free some space`, 'm'));
        const actors = await fed('actors', 'run', '--once');
        expect(actors.stderr).not.toMatch(/^\s+at /m);
      });
    },
  );

  it.skipIf(skipWithout(MOUNT_SUITE, noMount))(
    'a read-only federation: writes fail with exit 1 (EROFS) and a message; reads still work',
    async () => {
      const root = tempDir('fed-ro-');
      const fed = (...args: string[]) => runFed(['--root', root, ...args]);
      expect((await fed('init')).code).toBe(0);
      expect((await fed('team', 'onboard', 'docs')).code).toBe(0);
      expect((await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'work')).code).toBe(0);
      execFileSync('mount', ['--bind', root, root], { stdio: 'ignore' });
      try {
        execFileSync('mount', ['-o', 'remount,bind,ro', root], { stdio: 'ignore' });
        const send = await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'more');
        expectFedError(send, 1, /^fed: .*: the filesystem is read-only .*\[EROFS\]; remount it read-write/m);
        const event = await fed('event', '--team', 'docs', 'FAIL', '--data', '{"reason":"x"}');
        expectFedError(event, 1, /the filesystem is read-only/);
        const list = await fed('signal', 'list', '--team', 'docs');
        expect(list.code).toBe(0);
        expect(list.stdout).toContain('work');
      } finally {
        execFileSync('umount', ['-l', root], { stdio: 'ignore' });
      }
    },
  );
});

describe('a file fed may not read', () => {
  // As root every file is readable: the federation is handed to an unprivileged user, its file kept root's.
  const suite = 'reading a file fed may not read (EACCES), as an unprivileged user';
  const found = unprivilegedUser();
  const missing = found && 'missing' in found ? found.missing : undefined;
  const user = found && !('missing' in found) ? found : undefined;
  const name = user?.name ?? userInfo().username;
  const fix =
    `give ${name}, the user fed runs as, read access to it: chmod or chown it ` +
    `(or a folder above it that ${name} cannot enter), or run fed as a user who can read it`;

  /** A federation of the user's with team docs, where `body` runs with `file` out of the user's reach. */
  async function unreadable(file: string, body: (path: string, root: string) => Promise<void>): Promise<void> {
    const root = tempDir();
    chmodSync(root, 0o755);
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    if (user) handOver(root, user);
    const path = join(root, file);
    // Root's and mode 600 for the unprivileged user; mode 000 for a run that is not root's already.
    if (user) chownSync(path, 0, 0);
    chmodSync(path, user ? 0o600 : 0o000);
    await body(path, root);
    if (user) chownSync(path, user.uid, user.gid);
    chmodSync(path, 0o644);
    const list = await runFed(['--root', root, 'team', 'list', '--json'], { user });
    expect(list, list.stderr).toMatchObject({ code: 0 });
  }

  it.skipIf(skipWithout(suite, missing)).each(['federate.config.json', '.fed/team-registry.json'])(
    "%s: the fix is its permissions, for the user fed runs as, not the file's content",
    (file) =>
      unreadable(file, async (path, root) => {
        const result = await runFed(['--root', root, 'team', 'list'], { user });
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr).toBe(`fed: ${path} cannot be used: cannot be read (EACCES); ${fix}\n`);
      }),
  );

  it.skipIf(skipWithout(suite, missing)).each(['.fed/team-registry.json', '.fed/journal.jsonl'])(
    '%s: fed doctor says the same fix, never to restore it or move it aside',
    (file) =>
      unreadable(file, async (path, root) => {
        const result = await runFed(['--root', root, 'doctor'], { user });
        expect(result.code, result.stderr).toBe(1);
        expect(result.stdout).toContain(`${path} cannot be used: cannot be read (EACCES); ${fix}\n  fix: ${fix}\n`);
      }),
  );

  it.skipIf(skipWithout(suite, missing)).each(['inbox', 'outbox'])(
    "a team's %s: that team is unhealthy in fed monitor and a finding of fed doctor; the other teams are checked as ever",
    async (box) => {
      await unreadable(join('.fed', 'teams', 'docs', '.fed', 'signals', box), async (path, root) => {
        await onboardTeam(openFederation(root), { domain: 'other' }, { durable: false });
        if (user) handOver(join(root, '.fed', 'teams', 'other'), user);
        const monitor = await runFed(['--root', root, 'monitor', '--json'], { user });
        expect(monitor.code, monitor.stderr).toBe(0);
        const teams = (
          JSON.parse(monitor.stdout) as { teams: Array<{ team: string; healthy: boolean; reasons: string[] }> }
        ).teams;
        expect(teams.map(({ team, healthy }) => ({ team, healthy }))).toEqual([
          { team: 'docs', healthy: false },
          { team: 'other', healthy: true },
        ]);
        expect(teams[0]!.reasons).toEqual([
          `cannot read the team's signal boxes: ${path}: permission denied (scandir) [EACCES]; give the user running fed access to it`,
        ]);

        const doctor = await runFed(['--root', root, 'doctor', '--json'], { user });
        expect(doctor.code, doctor.stderr).toBe(1);
        const { findings } = JSON.parse(doctor.stdout) as { findings: Array<Record<string, unknown>> };
        expect(findings).toEqual([
          expect.objectContaining({ check: 'permission', team: 'docs', path: expect.stringContaining(path), fix }),
        ]);
        expect(findings[0]!.problem).toMatch(/: permission denied \(\w+\) \[EACCES\]; fed cannot check what is there$/);
      });
    },
  );
});

describe('fileSystemErrorFor', () => {
  const errno = (code: string, syscall: string, path?: string) =>
    Object.assign(new Error(`${code}: x`), { code, syscall, path });

  it.each([
    ['ENOSPC', false, /the disk is full/],
    ['EROFS', false, /read-only/],
    ['EMFILE', false, /too many open files .*ulimit -n/],
    ['EISDIR', true, /a directory where fed expects a file/],
    ['ENOTDIR', true, /a file where fed expects a directory/],
  ])('%s names the path and what to do (refusal: %s)', (code, refusal, message) => {
    const mapped = fileSystemErrorFor(errno(code, 'open', '/fed/x.json'));
    expect(mapped?.message).toMatch(/^\/fed\/x\.json: /);
    expect(mapped?.message).toMatch(message);
    expect(mapped?.refusal).toBe(refusal);
    expect(mapped?.code).toBe(`FS_${code}`);
  });

  it('leaves errors it does not know alone', () => {
    expect(fileSystemErrorFor(new Error('plain'))).toBeUndefined();
    expect(fileSystemErrorFor(errno('ECONNREFUSED', 'connect'))).toBeUndefined();
  });
});
