import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { LaunchResult } from '../../src/engine/hooks/federation-hooks.js';
import { FED_BIN } from '../helpers/fed-cli.js';
import { packageRoot } from '../../src/infra/package-info.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';
import { treeDigest } from '../helpers/tree-digest.js';
import { asUser, handOver, unprivilegedRound, type UnprivilegedUser } from '../helpers/unprivileged-user.js';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';

/**
 * The hostile agent suite (issue 26): fake agents that try every way out of their confinement, launched
 * with the built CLI as root (the Docker default) and as an unprivileged user. Afterwards the codebase and
 * every file the launch does not write itself are byte-identical, and the run is labelled honestly.
 *
 * To add an escape: a fixture under test/fixtures/agents/ built on hostile-kit.mjs (it reports each attempt
 * as "escape <what>: ESCAPED" or "…: refused (…)" and then does its job), and a row in ESCAPES.
 */

const SANDBOX_SUITE = 'the sandboxed hostile-agent tests (need bwrap)';
const user = unprivilegedRound('the hostile agents launched by an unprivileged user');

/** Who runs `fed launch`: this process's user (root in Docker) and, when that is root, an unprivileged one. */
const LAUNCHERS: { label: string; user?: UnprivilegedUser }[] = [
  { label: `uid ${process.getuid?.()}` },
  ...(user ? [{ label: `${user.name} (uid ${user.uid})`, user }] : []),
];

/** What a launch of the docs team writes itself: its own workspace, its reports to meta, the journal, git's index. */
const LAUNCH_WRITES = ['.fed/teams/docs', '.fed/signals/inbox', '.fed/delivery', '.fed/journal.jsonl', '.git/index'];
const launchWrites = (path: string) => LAUNCH_WRITES.some((own) => path === own || path.startsWith(`${own}/`));

/** How the agent is confined: the bubblewrap sandbox, a bwrap that cannot build it, or none (agent.sandbox: false). */
type Confinement = 'sandbox' | 'broken-bwrap' | 'off';

interface HostileRun {
  root: string;
  result: LaunchResult;
  transcript: string;
  /** Paths that differ when the launch returned, outside what the launch writes itself. */
  changed: string[];
  /** The same, now. */
  changedNow(): string[];
  /** The deliverable as the launch left it (empty when there is none). */
  deliverableAtReturn: string;
}

/** A PATH whose bwrap is a stub that fails the way bwrap does where it may not create namespaces. */
function brokenBwrapPath(): string {
  const bin = tempDir('fed-broken-bwrap-');
  const stub = join(bin, 'bwrap');
  writeFileSync(stub, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n');
  chmodSync(stub, 0o755);
  chmodSync(bin, 0o755);
  return `${bin}:${process.env.PATH}`;
}

/** `fed launch --team docs --json` with the built CLI in a fresh federation, as `launcher`, with `agent`. */
async function launchHostile(
  agent: string,
  launcher: { user?: UnprivilegedUser },
  options: { confinement?: Confinement; env?: NodeJS.ProcessEnv } = {},
): Promise<HostileRun> {
  const { root } = await federationWithMission();
  if (options.confinement === 'off')
    writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ agent: { sandbox: false } }, null, 2));
  if (launcher.user) handOver(root, launcher.user);
  const before = treeDigest(root, launchWrites);
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    NO_COLOR: '1',
    FED_TELEMETRY_ENABLED: 'false',
    ...(options.confinement === 'broken-bwrap' ? { PATH: brokenBwrapPath() } : {}),
    ...options.env,
  };
  const argv = asUser(
    launcher.user,
    [process.execPath, FED_BIN, 'launch', '--team', 'docs', '--agent', fakeAgent(agent), '--root', root, '--json'],
    options.env?.HOME,
  );
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      out.trim().startsWith('{') ? resolve(out) : reject(new Error(`fed launch exited ${code}: ${err}${out}`)),
    );
  });
  const result = JSON.parse(stdout) as LaunchResult;
  const deliverableAtReturn = existsSync(result.deliverablePath) ? readFileSync(result.deliverablePath, 'utf8') : '';
  const changedNow = () => {
    const after = treeDigest(root, launchWrites);
    return [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((p) => before[p] !== after[p]);
  };
  const transcript = readFileSync(result.lastRun.transcriptPath, 'utf8');
  return { root, result, transcript, changed: changedNow(), changedNow, deliverableAtReturn };
}

/** The escapes the agent's transcript reports, e.g. ["remount /tmp/x read-write: refused (EPERM)"]. */
function escapes(run: HostileRun): string[] {
  return [...run.transcript.matchAll(/^escape (.*)$/gm)].map((match) => match[1]!);
}

/** Processes alive (not zombies) whose command line contains `mark`. */
function processesMarked(mark: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return false;
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(mark);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * A home (with git and shell start-up files) and a cache folder of the launching user's own, outside the
 * root, and where fed is installed: what hostile-machine aims at.
 */
function homeWithStartupFiles(user: UnprivilegedUser | undefined): NodeJS.ProcessEnv {
  const home = tempDir('fed-hostile-home-');
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = someone\n');
  writeFileSync(join(home, '.bashrc'), "# the user's own\n");
  const cache = tempDir('fed-hostile-cache-');
  for (const dir of [home, cache]) {
    chmodSync(dir, 0o755);
    if (user) handOver(dir, user);
  }
  return { HOME: home, XDG_CACHE_HOME: cache, FED_HOSTILE_INSTALL: packageRoot() };
}

interface HostileCase {
  escape: string;
  /** The fixture under test/fixtures/agents/. */
  agent: string;
  env?: NodeJS.ProcessEnv;
  /** More environment, made for the user who launches (e.g. a home of theirs). */
  setup?: (user: UnprivilegedUser | undefined) => NodeJS.ProcessEnv;
  /** How the run must be labelled once every escape was refused (default complete). */
  outcome?: LaunchResult['outcome'];
  /** What the transcript must show was tried (so a fixture that tried nothing does not pass). */
  tried: RegExp;
}

const ESCAPES: HostileCase[] = [
  {
    escape: 'remount the read-only codebase read-write, or unmount it',
    agent: 'hostile-remount',
    tried: /^remount .* read-write: refused/m,
  },
  {
    escape: 'write the codebase through /proc/<pid>/root and /proc/<pid>/cwd of every process it sees',
    agent: 'hostile-proc',
    tried: /^write via \/proc\/\d+\/root: refused/m,
  },
  {
    escape: 'open a block device for writing (one under /dev, or one made with mknod)',
    agent: 'hostile-block-device',
    tried: /^mknod a block device and open it for writing: refused/m,
  },
  {
    escape:
      "write what runs outside the sandbox later: fed's installation and code cache, git's and the shell's start-up files, the system",
    agent: 'hostile-machine',
    setup: homeWithStartupFiles,
    tried: /^append to ~\/\.gitconfig: refused/m,
  },
  {
    escape: 'remount the codebase, then fail: a refused escape does not make the run complete',
    agent: 'hostile-remount',
    env: { FED_HOSTILE_THEN: 'fail' },
    outcome: 'failed',
    tried: /^remount .* read-write: refused/m,
  },
];

describe.each(LAUNCHERS)('a hostile agent launched by $label', (launcher) => {
  describe.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))('in the bubblewrap sandbox (needs bwrap)', () => {
    it.each(ESCAPES)('$escape', async ({ agent, env, setup, outcome, tried }) => {
      const run = await launchHostile(agent, launcher, { env: { ...env, ...setup?.(launcher.user) } });
      const attempts = escapes(run);
      expect(attempts.join('\n')).toMatch(tried);
      expect(attempts.filter((line) => line.endsWith('ESCAPED'))).toEqual([]);
      expect(run.changed).toEqual([]);
      expect(run.result.lastRun.sandboxed).toBe(true);
      expect(run.result.warnings.filter((w) => w.includes('bubblewrap'))).toEqual([]);
      expect(run.result.outcome).toBe(outcome ?? 'complete');
    });
  });

  /**
   * The agent leaves a process behind that rewrites the deliverable (and tries the codebase) a second
   * later: it is gone when the launch returns, and the deliverable stays what fed checked.
   */
  async function leaveBackgroundWriter(confinement: Confinement, session: 'group' | 'new'): Promise<void> {
    const mark = `fed-hostile-background-${randomUUID()}`;
    const run = await launchHostile('hostile-background', launcher, {
      confinement,
      env: { FED_HOSTILE_MARK: mark, ...(session === 'new' ? { FED_HOSTILE_SESSION: 'new' } : {}) },
    });
    const started = /^left a background writer behind: pid \d+ \(.*\) at (\d+)$/m.exec(run.transcript);
    expect(started, run.transcript).not.toBeNull();
    expect(run.result.outcome).toBe('complete');
    expect(run.result.lastRun.sandboxed).toBe(confinement === 'sandbox');
    expect(processesMarked(mark)).toEqual([]);
    // Past the moment the writer would have struck (1 s after it started), nothing changed.
    await sleep(Math.max(0, Number(started![1]) + 1_500 - Date.now()));
    expect(readFileSync(run.result.deliverablePath, 'utf8')).toBe(run.deliverableAtReturn);
    expect(run.deliverableAtReturn).toContain('# Report');
    expect(run.changedNow()).toEqual([]);
  }

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'in the sandbox, a background writer it leaves in its process group ends with it (needs bwrap)',
    () => leaveBackgroundWriter('sandbox', 'group'),
  );

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'in the sandbox, a background writer in a session of its own ends with it too: the PID namespace ends (needs bwrap)',
    () => leaveBackgroundWriter('sandbox', 'new'),
  );

  it('without the sandbox (agent.sandbox: false), a background writer it leaves in its process group ends with it', () =>
    leaveBackgroundWriter('off', 'group'));

  it('with a bwrap that cannot build the sandbox: the launch says why, checks the codebase, and fails the run that wrote it', async () => {
    const run = await launchHostile('write-codebase', launcher, { confinement: 'broken-bwrap' });
    expect(run.transcript).toContain('write to README.md: allowed');
    expect(run.result.lastRun.sandboxed).toBe(false);
    expect(run.result.warnings).toContainEqual(
      expect.stringMatching(
        /^bubblewrap \(.*\/bwrap\) cannot create a sandbox here: bwrap: No permissions to create new namespace: the codebase is not mounted read-only for the agent; fed checks it before and after the run instead$/,
      ),
    );
    expect(run.result).toMatchObject({ outcome: 'failed', state: 'failed' });
    expect(run.result.reason).toMatch(/^codebase modified: .*README\.md/);
  });
});
