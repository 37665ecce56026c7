import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type LaunchResult, packageRoot } from 'fed/testing';
import { FED_BIN } from '../helpers/fed-cli.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { onboardTeam, openFederation, sendSignal } from 'fed';
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
  /** The user's home (FED_HOSTILE_USER_HOME) before the launch, digested. */
  userHomeBefore: Record<string, string>;
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
  options: {
    confinement?: Confinement;
    env?: NodeJS.ProcessEnv;
    config?: unknown;
    prepare?: (root: string) => Promise<NodeJS.ProcessEnv>;
  } = {},
): Promise<HostileRun> {
  const { root } = await federationWithMission();
  const prepared = await options.prepare?.(root);
  // Where the sandbox cannot be built, only a team whose network is open is launched (network-policy.test.ts).
  const config =
    options.confinement === 'off'
      ? { agent: { sandbox: false } }
      : options.confinement === 'broken-bwrap'
        ? { agent: { network: 'open' } }
        : options.config;
  if (config) writeFileSync(join(root, 'federate.config.json'), JSON.stringify(config, null, 2));
  const userHome = options.env?.FED_HOSTILE_USER_HOME;
  const userHomeBefore = userHome ? treeDigest(userHome, () => false) : {};
  if (launcher.user) handOver(root, launcher.user);
  const before = treeDigest(root, launchWrites);
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    NO_COLOR: '1',
    FED_TELEMETRY_ENABLED: 'false',
    ...(options.confinement === 'broken-bwrap' ? { PATH: brokenBwrapPath() } : {}),
    ...options.env,
    ...prepared,
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
  return { root, result, transcript, changed: changedNow(), changedNow, deliverableAtReturn, userHomeBefore };
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
 * A home of the launching user's own (git's config, the shell's start-up files, ~/.local/bin first on
 * PATH, a CLI's settings and credentials, ~/.npmrc), a cache folder, and where fed is installed: what
 * hostile-machine aims at. The agent's own home gets the credentials (agent.homeFiles), read-only.
 */
function homeWithStartupFiles(user: UnprivilegedUser | undefined): NodeJS.ProcessEnv {
  const home = tempDir('fed-hostile-home-');
  const files: Record<string, string> = {
    '.gitconfig': '[user]\n\tname = someone\n',
    '.bashrc': "# the user's own\n",
    '.bash_logout': "# the user's own\n",
    '.npmrc': 'fund=false\n',
    '.config/git/config': '[user]\n\tname = someone\n',
    '.claude/settings.json': '{}\n',
    '.claude/.credentials.json': 'the-users-token\n',
    '.local/bin/.keep': '',
  };
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, file)), { recursive: true });
    writeFileSync(join(home, file), text);
  }
  const cache = tempDir('fed-hostile-cache-');
  for (const dir of [home, cache]) {
    chmodSync(dir, 0o755);
    if (user) handOver(dir, user);
  }
  return {
    HOME: home,
    XDG_CACHE_HOME: cache,
    PATH: `${join(home, '.local', 'bin')}:${process.env.PATH}`,
    FED_HOSTILE_USER_HOME: home,
    FED_HOSTILE_CACHE: cache,
    FED_HOSTILE_INSTALL: packageRoot(),
  };
}

/** Another team, and a question from it waiting in meta's inbox: what hostile-other-boxes aims at. */
async function questionToMeta(root: string): Promise<NodeJS.ProcessEnv> {
  await onboardTeam(openFederation(root), { domain: 'other' });
  const sent = await sendSignal(openFederation(root), {
    from: 'other',
    to: 'meta',
    type: 'question',
    subject: 'canary question',
  });
  return { FED_HOSTILE_META_SIGNAL: sent.message.id };
}

/** The signals of a box folder, as stored (`acknowledged` read from the ack file beside each). */
function signalsInBox(box: string): { from: string; subject: string; acknowledged: boolean }[] {
  return readdirSync(box)
    .filter((name) => name.endsWith('.json'))
    .map((name) => ({
      ...(JSON.parse(readFileSync(join(box, name), 'utf8')) as { from: string; subject: string }),
      acknowledged: existsSync(join(box, `${name}.ack`)),
    }));
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
  /** What the transcript must show was tried (so a fixture that tried nothing does not pass); or `then` checks it. */
  tried?: RegExp;
  /** federate.config.json for the run. */
  config?: unknown;
  /** Made in the federation before the launch; returns more environment for the agent. */
  prepare?: (root: string) => Promise<NodeJS.ProcessEnv>;
  /** More to check once the run ended, with the environment it ran with. */
  then?: (run: HostileRun, env: NodeJS.ProcessEnv) => void;
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
      "write what runs outside the sandbox later: fed's installation and code cache, the system, anything of the user's home (a renamed ~/.config, ~/.local/bin, ~/.claude/settings.json, ~/.npmrc, ~/.bash_logout, start-up files)",
    agent: 'hostile-machine',
    setup: homeWithStartupFiles,
    config: { agent: { homeFiles: ['.claude/.credentials.json'] } },
    tried: /^rename the user's ~\/\.config and plant git's config in its place: refused/m,
    then: (run, env) => {
      // Its home was its own, kept for the next run; the user's credentials readable there, nothing of the
      // user's home changed.
      expect(run.transcript).toContain("its home is the user's: false\n");
      expect(run.transcript).toContain('credentials in its home: the-users-token\n');
      expect(run.transcript).toContain('its own files in its home: written\n');
      expect(existsSync(join(run.root, '.fed/teams/docs/.fed/home/agent-session.json'))).toBe(true);
      expect(treeDigest(env.FED_HOSTILE_USER_HOME!, () => false)).toEqual(run.userHomeBefore);
    },
  },
  {
    escape:
      "through the broker, act on other parties' boxes: acknowledge, list, watch meta's inbox, show others' signals, serve another team's MCP tools",
    agent: 'hostile-other-boxes',
    prepare: questionToMeta,
    tried: /^acknowledge meta's inbox: refused \(exit 2: fed: team \(--team\): this command runs as team "docs"/m,
    then: (run) => {
      expect(escapes(run).filter((line) => line.includes('exit 2: fed:'))).toHaveLength(7);
      // Meta's question is still waiting on meta, unacknowledged.
      const question = signalsInBox(join(run.root, '.fed/signals/inbox')).find((s) => s.subject === 'canary question');
      expect(question).toMatchObject({ from: 'other', acknowledged: false });
    },
  },
  {
    escape:
      'lock its team out of the broker: 1,000 connections held without the token while the agent runs 25 commands',
    agent: 'hostile-hog',
    then: (run) => {
      // It reached the broker with every connection (a hog that reached nothing would prove nothing).
      expect(run.transcript).toMatch(/^hog: 1000 of 1000 connections made, \d+ open$/m);
      expect(run.transcript).toContain('agent commands: 25 of 25 succeeded\n');
    },
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
    it.each(ESCAPES)('$escape', async ({ agent, env, setup, outcome, tried, config, prepare, then }) => {
      const runEnv = { ...env, ...setup?.(launcher.user) };
      const run = await launchHostile(agent, launcher, { env: runEnv, config, prepare });
      const attempts = escapes(run);
      if (tried) expect(attempts.join('\n')).toMatch(tried);
      expect(attempts.filter((line) => line.endsWith('ESCAPED'))).toEqual([]);
      expect(run.changed).toEqual([]);
      expect(run.result.lastRun.sandboxed).toBe(true);
      expect(run.result.warnings.filter((w) => w.includes('bubblewrap'))).toEqual([]);
      expect(run.result.outcome).toBe(outcome ?? 'complete');
      then?.(run, runEnv);
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
