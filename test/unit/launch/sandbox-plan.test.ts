import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bubblewrapArgs, findBubblewrap, machineMounts } from '../../../src/apps/launch/sandbox.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The sandbox's plan, word for word: the hostile-agent suites show what it stops when bwrap runs it (as
 * root and as a user, through the built CLI); these pin what it asks bwrap for, so no flag of the
 * isolation, no mount and no order between the mounts can change unseen. Later mounts win over earlier
 * ones at the same place, so the order is part of the rule.
 */
describe('the bubblewrap arguments of a sandboxed run', () => {
  const machine = { writable: ['/home/ann', '/tmp'], protectedPaths: ['/home/ann/.gitconfig', '/opt/fed'] };

  it('isolate first, then the machine read-only, fresh /proc and /dev, its writable places, what is protected in them, the root read-only, the workspace writable', () => {
    expect(
      bubblewrapArgs('/usr/bin/bwrap', { root: '/tmp/shop', workspace: '/tmp/shop/.fed/teams/docs', machine }),
    ).toEqual([
      '/usr/bin/bwrap',
      // No capabilities, its own PIDs, killed with its parent, no terminal: what keeps root from undoing the mounts.
      '--unshare-pid',
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--bind',
      '/home/ann',
      '/home/ann',
      '--bind',
      '/tmp',
      '/tmp',
      // After the writable places they lie in: read-only again.
      '--ro-bind-try',
      '/home/ann/.gitconfig',
      '/home/ann/.gitconfig',
      '--ro-bind-try',
      '/opt/fed',
      '/opt/fed',
      // A root inside a writable place (here /tmp) is read-only again after it; the workspace writable last.
      '--ro-bind',
      '/tmp/shop',
      '/tmp/shop',
      '--bind',
      '/tmp/shop/.fed/teams/docs',
      '/tmp/shop/.fed/teams/docs',
      '--',
    ]);
  });

  it("a worktree team's checkout is read-only but its own .fed/ and its deliverable", () => {
    const args = bubblewrapArgs('bwrap', {
      root: '/r',
      workspace: '/r/.fed/worktrees/docs',
      worktree: '/r/.fed/worktrees/docs',
      writableFiles: ['/r/.fed/worktrees/docs/deliverable.md'],
      machine: { writable: [], protectedPaths: [] },
    });
    expect(args.slice(args.indexOf('/proc') + 1)).toEqual([
      '--ro-bind',
      '/r',
      '/r',
      '--ro-bind',
      '/r/.fed/worktrees/docs',
      '/r/.fed/worktrees/docs',
      '--bind',
      '/r/.fed/worktrees/docs/.fed',
      '/r/.fed/worktrees/docs/.fed',
      '--bind',
      '/r/.fed/worktrees/docs/deliverable.md',
      '/r/.fed/worktrees/docs/deliverable.md',
      '--',
    ]);
  });
});

describe('what stays writable outside the root, and what is protected in it', () => {
  it("the home and the temp dirs that exist, once each; fed's code cache, its installation and the home's start-up files protected", () => {
    const home = tempDir();
    const temp = tempDir();
    const mounts = machineMounts({ HOME: home, TMPDIR: temp }, { codeCache: '/c/cache', installation: '/opt/fed' });
    expect(mounts.writable).toEqual([home, temp, '/tmp', '/var/tmp']);
    expect(mounts.protectedPaths).toEqual([
      '/c/cache',
      '/opt/fed',
      ...[
        '.gitconfig',
        '.config/git',
        '.bashrc',
        '.bash_profile',
        '.bash_login',
        '.profile',
        '.zshrc',
        '.zshenv',
        '.zprofile',
        '.ssh',
      ].map((file) => join(home, file)),
    ]);
    // A TMPDIR that is /tmp is one place, not two.
    expect(machineMounts({ HOME: home, TMPDIR: '/tmp' }, { installation: '/opt/fed' }).writable).toEqual([
      home,
      '/tmp',
      '/var/tmp',
    ]);
  });

  it('no home (unset, or /: the whole machine) is no writable home and nothing of one to protect; a missing place is left out', () => {
    for (const env of [{}, { HOME: '/' }, { HOME: '' }]) {
      const mounts = machineMounts(env, { installation: '/opt/fed' });
      expect(mounts.writable).toEqual(['/tmp', '/var/tmp']);
      expect(mounts.protectedPaths).toEqual(['/opt/fed']);
    }
    expect(machineMounts({ HOME: '/no/such/home', TMPDIR: '/no/such/tmp' }, { installation: '/i' }).writable).toEqual([
      '/tmp',
      '/var/tmp',
    ]);
  });
});

describe('finding a bwrap that can sandbox here', () => {
  /** A bwrap stub in a bin folder of its own that records its arguments and answers as `script` says. */
  function stubBwrap(script: string): { bin: string; calls: string } {
    const bin = tempDir();
    const calls = join(bin, 'calls');
    writeFileSync(join(bin, 'bwrap'), `#!/bin/sh\necho "$@" >> '${calls}'\n${script}\n`);
    chmodSync(join(bin, 'bwrap'), 0o755);
    return { bin, calls };
  }

  it('probes it as the sandbox is built: isolated, the machine read-only, fresh /proc and /dev, running true', () => {
    const { bin, calls } = stubBwrap('exit 0');
    expect(findBubblewrap({ PATH: ['/no/such/dir', '', bin].join(':') })).toEqual({ bwrap: join(bin, 'bwrap') });
    expect(readFileSync(calls, 'utf8')).toBe(
      '--unshare-pid --die-with-parent --new-session --cap-drop ALL --ro-bind / / --dev /dev --proc /proc -- true\n',
    );
  });

  it('one that cannot is missing, with what it said, or its exit code when it said nothing; none at all says how to install it', () => {
    const said = stubBwrap("echo '  no namespaces here  ' >&2; exit 1");
    expect(findBubblewrap({ PATH: said.bin })).toEqual({
      missing: `bubblewrap (${join(said.bin, 'bwrap')}) cannot create a sandbox here: no namespaces here`,
    });
    const silent = stubBwrap('exit 7');
    expect(findBubblewrap({ PATH: silent.bin })).toEqual({
      missing: `bubblewrap (${join(silent.bin, 'bwrap')}) cannot create a sandbox here: exit 7`,
    });
    // Not a program at all (a folder of that name): why it cannot be run.
    const folder = tempDir();
    mkdirSync(join(folder, 'bwrap'));
    expect(findBubblewrap({ PATH: folder })).toEqual({
      missing: `bubblewrap (${join(folder, 'bwrap')}) cannot create a sandbox here: spawnSync ${join(folder, 'bwrap')} EACCES`,
    });
    expect(findBubblewrap({ PATH: tempDir() })).toEqual({
      missing: 'bubblewrap (bwrap) is not installed (apt-get install bubblewrap)',
    });
    expect(findBubblewrap({})).toEqual({ missing: 'bubblewrap (bwrap) is not installed (apt-get install bubblewrap)' });
  });
});
