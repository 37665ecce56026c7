import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bubblewrapArgs,
  findBubblewrap,
  machineMounts,
  shownProgram,
} from '../../../src/apps/launch/prepare/sandbox/sandbox.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The sandbox's plan, word for word: the hostile-agent suites show what it stops when bwrap runs it (as
 * root and as a user, through the built CLI); these pin what it asks bwrap for, so no flag of the
 * isolation, no mount and no order between the mounts can change unseen. Later mounts win over earlier
 * ones at the same place, so the order is part of the rule.
 */
describe('the bubblewrap arguments of a sandboxed run', () => {
  const machine = { privateTemp: ['/tmp', '/var/tmp'], protectedPaths: ['/tmp/fed-code-cache-0', '/opt/fed'] };
  const home = {
    home: '/tmp/shop/.fed/teams/docs/.fed/home',
    files: [
      {
        source: '/home/ann/.claude/.credentials.json',
        target: '/tmp/shop/.fed/teams/docs/.fed/home/.claude/.credentials.json',
      },
    ],
    env: {
      HOME: '/tmp/shop/.fed/teams/docs/.fed/home',
      XDG_CONFIG_HOME: '/tmp/shop/.fed/teams/docs/.fed/home/.config',
      CLAUDE_CONFIG_DIR: '/tmp/shop/.fed/teams/docs/.fed/home/.claude',
    },
  };

  it("isolate first, then the machine read-only, fresh /proc and /dev, private temp dirs, what they would hide, the root read-only, the workspace writable, the agent's own home last", () => {
    expect(
      bubblewrapArgs('/usr/bin/bwrap', {
        root: '/tmp/shop',
        workspace: [{ kind: 'writable', path: '/tmp/shop/.fed/teams/docs' }],
        hidden: { outsideRoot: [], inRoot: [] },
        machine,
        home,
        program: ['/tmp/ann/agents'],
      }),
    ).toEqual([
      '/usr/bin/bwrap',
      // No capabilities, its own PIDs, killed with its parent, no terminal: what keeps root from undoing the mounts.
      '--unshare-pid',
      '--die-with-parent',
      '--new-session',
      '--cap-drop',
      'ALL',
      // The user's home among the rest: read-only.
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      // Temp dirs of its own: what it leaves there is never found outside.
      '--tmpfs',
      '/tmp',
      '--tmpfs',
      '/var/tmp',
      // What they would hide, shown again read-only.
      '--ro-bind-try',
      '/tmp/fed-code-cache-0',
      '/tmp/fed-code-cache-0',
      '--ro-bind-try',
      '/opt/fed',
      '/opt/fed',
      // The agent's program, wherever it is: `--agent ./run-agent.sh` run from a temp dir, and its folder.
      '--ro-bind-try',
      '/tmp/ann/agents',
      '/tmp/ann/agents',
      // A root inside a temp dir is shown again, read-only; the workspace writable after it.
      '--ro-bind',
      '/tmp/shop',
      '/tmp/shop',
      '--bind',
      '/tmp/shop/.fed/teams/docs',
      '/tmp/shop/.fed/teams/docs',
      // Its home, writable, with the credentials of the user's home in it read-only.
      '--bind',
      home.home,
      home.home,
      '--ro-bind',
      '/home/ann/.claude/.credentials.json',
      '/tmp/shop/.fed/teams/docs/.fed/home/.claude/.credentials.json',
      '--setenv',
      'HOME',
      home.home,
      '--setenv',
      'XDG_CONFIG_HOME',
      `${home.home}/.config`,
      '--setenv',
      'CLAUDE_CONFIG_DIR',
      `${home.home}/.claude`,
      '--',
    ]);
  });

  it("a worktree team's checkout is read-only but its own .fed/ and its deliverable", () => {
    const args = bubblewrapArgs('bwrap', {
      root: '/r',
      workspace: [
        { kind: 'read-only', path: '/r/.fed/worktrees/docs' },
        { kind: 'writable', path: '/r/.fed/worktrees/docs/.fed' },
        { kind: 'writable', path: '/r/.fed/worktrees/docs/deliverable.md' },
      ],
      hidden: { outsideRoot: [], inRoot: [] },
      machine: { privateTemp: [], protectedPaths: [] },
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

  describe('with a network policy: its own network namespace, the filter read from descriptor 9', () => {
    const plan = (agentListens: boolean) =>
      bubblewrapArgs('bwrap', {
        root: '/r',
        workspace: [{ kind: 'writable', path: '/r/.fed/teams/docs' }],
        hidden: { outsideRoot: [], inRoot: [] },
        machine: { privateTemp: [], protectedPaths: [] },
        filterFile: '/r/.fed/teams/docs/.fed/launch/filter.bpf',
        network: { forwardedPorts: [5432], agentListens },
      });
    const namespace = ['--unshare-net', '--seccomp', '9'];

    it("any agent: the filter, in the network namespace of the agent's watchdog, which listens there (networkOfItsOwn); nothing runs before the agent", () => {
      const args = plan(false);
      expect(args.slice(0, 5)).toEqual([
        '/bin/sh',
        '-c',
        'exec "$@" 9<"$0"',
        '/r/.fed/teams/docs/.fed/launch/filter.bpf',
        'bwrap',
      ]);
      const end = args.indexOf('--');
      expect(args.slice(end - 2, end)).toEqual(['--seccomp', '9']);
      expect(args).not.toContain('--unshare-net');
      // The agent's command follows bwrap's `--` directly.
      expect(args.slice(end + 1)).toEqual([]);
    });

    it('the built-in agent: told the ports to listen on itself, and nothing runs before it', () => {
      const args = plan(true);
      const end = args.indexOf('--');
      expect(args.slice(end - 6, end)).toEqual([
        ...namespace,
        '--setenv',
        'FED_SANDBOX_LISTEN_PORTS',
        '3128 3129 5432',
      ]);
      // The agent's command follows bwrap's `--` directly.
      expect(args.slice(end + 1)).toEqual([]);
    });
  });
});

describe('without a network policy (the policy open)', () => {
  it("the filter all the same, read from descriptor 9, with the machine's network", () => {
    const args = bubblewrapArgs('bwrap', {
      root: '/r',
      workspace: [{ kind: 'writable', path: '/r/.fed/teams/docs' }],
      hidden: { outsideRoot: [], inRoot: [] },
      machine: { privateTemp: [], protectedPaths: [] },
      filterFile: '/r/.fed/teams/docs/.fed/launch/filter.bpf',
    });
    expect(args.slice(0, 5)).toEqual([
      '/bin/sh',
      '-c',
      'exec "$@" 9<"$0"',
      '/r/.fed/teams/docs/.fed/launch/filter.bpf',
      'bwrap',
    ]);
    const end = args.indexOf('--');
    expect(args.slice(end - 2, end)).toEqual(['--seccomp', '9']);
    expect(args).not.toContain('--unshare-net');
  });
});

describe('what is private and what is shown again outside the root', () => {
  it("the temp dirs that exist, once each, are private; fed's code cache, its installation and node shown again; nothing of the home", () => {
    const home = tempDir();
    const temp = tempDir();
    const mounts = machineMounts({ HOME: home, TMPDIR: temp }, { codeCache: '/c/cache', installation: '/opt/fed' });
    expect(mounts.privateTemp).toEqual([temp, '/tmp', '/var/tmp']);
    expect(mounts.protectedPaths).toEqual(['/c/cache', '/opt/fed', process.execPath]);
    // A TMPDIR that is /tmp is one place, not two; a missing one is left out.
    expect(machineMounts({ TMPDIR: '/tmp' }, { installation: '/opt/fed' }).privateTemp).toEqual(['/tmp', '/var/tmp']);
    expect(machineMounts({ TMPDIR: '/no/such/tmp' }, { installation: '/i' }).privateTemp).toEqual(['/tmp', '/var/tmp']);
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
    // Not a program at all (a folder of that name): passed over, and named.
    const folder = tempDir();
    mkdirSync(join(folder, 'bwrap'));
    expect(findBubblewrap({ PATH: folder })).toEqual({
      missing: `bubblewrap (bwrap) is not installed (apt-get install bubblewrap) (passed over: ${join(folder, 'bwrap')} — a directory, not a program)`,
    });
    expect(findBubblewrap({ PATH: tempDir() })).toEqual({
      missing: 'bubblewrap (bwrap) is not installed (apt-get install bubblewrap)',
    });
    expect(findBubblewrap({})).toEqual({ missing: 'bubblewrap (bwrap) is not installed (apt-get install bubblewrap)' });
  });

  it('one a sandboxed agent could have planted — in a .fed folder, in agent.home, or a link to one there — is never run (issue 48)', () => {
    const planted = join(tempDir(), 'root', '.fed', 'teams', 'docs', '.fed', 'home', '.local', 'bin');
    mkdirSync(planted, { recursive: true });
    writeFileSync(join(planted, 'bwrap'), `#!/bin/sh\ntouch '${planted}/ran'\n`);
    chmodSync(join(planted, 'bwrap'), 0o755);
    expect(findBubblewrap({ PATH: planted })).toEqual({
      missing: `bubblewrap (bwrap) is not installed (apt-get install bubblewrap) (left out: ${join(planted, 'bwrap')} — a sandboxed agent can write there, so fed never runs it)`,
    });
    const homes = stubBwrap('exit 0');
    expect(findBubblewrap({ PATH: homes.bin }, [homes.bin])).toMatchObject({
      missing: expect.stringContaining('left out'),
    });
    // A link elsewhere that leads into such a place is left out too; a real one after it is found.
    const linked = tempDir();
    symlinkSync(join(planted, 'bwrap'), join(linked, 'bwrap'));
    const real = stubBwrap('exit 0');
    expect(findBubblewrap({ PATH: [linked, real.bin].join(':') })).toEqual({ bwrap: join(real.bin, 'bwrap') });
    expect(existsSync(join(planted, 'ran'))).toBe(false);
  });
});

describe("the agent's program, when a private temp dir would hide it (issue 80 item 7)", () => {
  const privateTemp = ['/tmp', '/var/tmp'];

  it('anywhere else: nothing to show again', () => {
    expect(shownProgram('/usr/local/bin/claude', privateTemp)).toEqual({ paths: [] });
  });

  it("in a folder of its own: that folder, so what lies beside it (a script's ./common.sh) is there too", () => {
    expect(shownProgram('/tmp/ann/agents/run-agent.sh', privateTemp)).toEqual({ paths: ['/tmp/ann/agents'] });
  });

  it('installed with npm i --prefix: the prefix that holds its node_modules, through the link of its bin', () => {
    const prefix = tempDir();
    const pkg = join(prefix, 'node_modules', '@acme', 'cli');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'cli.js'), '');
    mkdirSync(join(prefix, 'node_modules', '.bin'));
    symlinkSync('../@acme/cli/cli.js', join(prefix, 'node_modules', '.bin', 'acme'));
    expect(shownProgram(join(prefix, 'node_modules', '.bin', 'acme'), [dirname(prefix)])).toEqual({ paths: [prefix] });
  });

  it('right in a temp dir: only itself, which the launch says (the temp dir stays private)', () => {
    expect(shownProgram('/tmp/run-agent.sh', privateTemp)).toEqual({ paths: ['/tmp/run-agent.sh'], alone: '/tmp' });
  });
});

describe('the mounts that hide what a sandboxed agent cannot read (issue 80 item 3)', () => {
  it('mounted before the temp dirs and the root when outside the root, after the workspace when inside it', () => {
    const args = bubblewrapArgs('bwrap', {
      root: '/r',
      workspace: [{ kind: 'writable', path: '/r/.fed/teams/docs' }],
      hidden: {
        outsideRoot: [
          { kind: 'empty', path: '/home/ann/.ssh' },
          { kind: 'unreadable', path: '/home/ann/.netrc' },
        ],
        inRoot: [{ kind: 'unreadable', path: '/r/.env' }],
      },
      machine: { privateTemp: ['/tmp'], protectedPaths: [] },
    });
    expect(args.slice(args.indexOf('/proc') + 1, args.indexOf('--'))).toEqual([
      '--tmpfs',
      '/home/ann/.ssh',
      '--remount-ro',
      '/home/ann/.ssh',
      '--ro-bind',
      '/dev/null',
      '/home/ann/.netrc',
      '--tmpfs',
      '/tmp',
      '--ro-bind',
      '/r',
      '/r',
      '--bind',
      '/r/.fed/teams/docs',
      '/r/.fed/teams/docs',
      '--ro-bind',
      '/dev/null',
      '/r/.env',
    ]);
  });
});
