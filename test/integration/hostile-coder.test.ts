import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LaunchResult } from 'fed/testing';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';
import { FED_BIN } from '../helpers/fed-cli.js';
import { fakeAgent } from '../helpers/launch-federation.js';
import { tempDir, tempDirOutsideTemp } from '../helpers/temp-dir.js';
import { treeDigest } from '../helpers/tree-digest.js';
import { asUser, handOver, unprivilegedRound, type UnprivilegedUser } from '../helpers/unprivileged-user.js';

/**
 * The hostile coder (issue 80): a coding team's agent, sandboxed, that tries every way to write what git or
 * your tools later obey, to read your credential stores, to reach a host outside its policy and to push
 * (test/fixtures/agents/hostile-coder.mjs) — launched by the built CLI as root and as an unprivileged user.
 * Each attempt is its own test and must be refused; then the agent commits on its branch, and fed's review,
 * approval and merge take the commit and run nothing of the agent's. The canary home and the remote lie
 * outside the temp dirs (which the sandbox makes private), where a user's home and repositories are.
 */

const SUITE = 'the hostile coder tests (need bwrap)';
const user = unprivilegedRound('the hostile coder launched by an unprivileged user');
const LAUNCHERS: { label: string; user?: UnprivilegedUser }[] = [
  { label: `uid ${process.getuid?.()}` },
  ...(user ? [{ label: `${user.name} (uid ${user.uid})`, user }] : []),
];

/** Each attempt the fixture reports, as its transcript names it, and the refusal expected (EROFS where a file is there). */
const ATTEMPTS: { attempt: string; refused: RegExp }[] = [
  { attempt: "append core.fsmonitor to the repository's .git/config", refused: /EROFS/ },
  { attempt: 'git config core.fsmonitor (the repository config)', refused: /EROFS/ },
  { attempt: 'git config extensions.worktreeConfig true', refused: /EROFS/ },
  // Without worktreeConfig, which it cannot turn on, git has no worktree config to write.
  { attempt: 'git config --worktree core.fsmonitor', refused: /--worktree cannot be used|EROFS/ },
  { attempt: "write the worktree's own config.worktree", refused: /EROFS/ },
  { attempt: 'plant a hook in .git/hooks (reference-transaction)', refused: /EROFS/ },
  { attempt: 'plant attributes in .git/info/attributes', refused: /EROFS/ },
  { attempt: 'write the ref of another branch (refs/heads/main)', refused: /EROFS/ },
  { attempt: 'git update-ref refs/heads/main (another branch)', refused: /EROFS/ },
  { attempt: 'git branch --force main (another branch)', refused: /main|Read-only/ },
  { attempt: 'write packed-refs', refused: /EROFS/ },
  { attempt: "point the worktree's .git elsewhere", refused: /EROFS/ },
  { attempt: "point the worktree's git folder at another common folder (commondir)", refused: /EROFS/ },
  { attempt: "rewrite the worktree's gitdir", refused: /EROFS/ },
  { attempt: "delete an object of the repository's (every branch shares them)", refused: /EROFS/ },
  { attempt: "rewrite the store's alternates (objects/info/alternates)", refused: /EROFS/ },
  { attempt: "rename the store's objects/info away, to make one of its own", refused: /EBUSY/ },
  { attempt: "plant a hook in a submodule's git folder", refused: /EROFS/ },
  { attempt: "point a submodule's .git elsewhere", refused: /EROFS/ },
  { attempt: 'write .claude/settings.json', refused: /EROFS/ },
  { attempt: 'write .vscode/tasks.json', refused: /EROFS/ },
  { attempt: 'write .vscode/settings.json', refused: /EROFS/ },
  // Where the file was not there, fed holds its place with an empty read-only folder.
  { attempt: 'write .envrc', refused: /EISDIR/ },
  { attempt: 'write .mcp.json', refused: /EISDIR/ },
  ...[
    '.ssh/id_ed25519',
    '.aws/credentials',
    '.config/gh/hosts.yml',
    '.docker/config.json',
    '.kube/config',
    '.netrc',
    '.npmrc',
    '.git-credentials',
    '.config/gcloud/credentials.db',
    '.claude/.credentials.json',
    '.codex/auth.json',
    'notes/secret.txt',
  ].map((store) => ({ attempt: `read ~/${store}`, refused: /ENOENT|EACCES/ })),
  { attempt: "read the codebase's .env (agent.denyRead)", refused: /EACCES/ },
  { attempt: 'connect to 127.0.0.1:<port> (a host its policy does not list)', refused: /ECONNREFUSED|ENETUNREACH/ },
  { attempt: 'git push to a repository on this machine (<remote>)', refused: /Read-only|denied|failed/ },
  { attempt: 'git push over HTTP to 127.0.0.1:<port>', refused: /connect|Could not|Failed|refused/i },
];

/** What the launch, and fed's review and merge after it, left: read by each test below. */
interface CoderRun {
  result: LaunchResult;
  transcript: string;
  port: number;
  remote: string;
  /** The repository's files the agent must not change (config, hooks, info, other refs, submodules' git folders…), before and after its run. */
  guarded: { before: Record<string, string>; after: Record<string, string> };
  /** The repository's objects before, and after: each one there before is there after, unchanged. */
  objects: { before: Record<string, string>; after: Record<string, string> };
  /** The canary home, before and after. */
  home: { before: Record<string, string>; after: Record<string, string> };
  /** The real branch of the other coding team, before and after. */
  otherBranch: { before: string; after: string };
  /** The planted program left its mark (it must never run: not in the sandbox, not in fed's git after). */
  programRan: boolean;
  review: { code: number; out: string };
  approve: { code: number; out: string };
  merge: { code: number; out: string };
  /** main after the merge: its files. */
  merged: string[];
}

/** The repository's guarded paths, relative to its .git, and the worktrees' pointers. */
const guardedGit = (path: string) =>
  !/^(config|hooks|info|packed-refs|refs\/heads\/main|refs\/heads\/fed\/other|modules|worktrees\/app\/(commondir|gitdir|modules)|worktrees\/other)(\/|$)/.test(
    path,
  ) && !/^(refs|refs\/heads|refs\/heads\/fed|worktrees|worktrees\/app)$/.test(path);

async function runHostileCoder(launcher: { user?: UnprivilegedUser }): Promise<CoderRun> {
  const outside = tempDirOutsideTemp('fed-hostile-coder-');
  // The user's home, with canaries in each credential store the sandbox hides.
  const home = join(outside, 'home');
  const canaries: Record<string, string> = {
    '.ssh/id_ed25519': 'canary ssh key\n',
    '.aws/credentials': 'canary aws\n',
    '.config/gh/hosts.yml': 'canary gh\n',
    '.docker/config.json': '{"canary": true}\n',
    '.kube/config': 'canary kube\n',
    '.netrc': 'machine example.com login canary\n',
    '.npmrc': '//registry.example/:_authToken=canary\n',
    '.git-credentials': 'https://canary@example.com\n',
    '.config/gcloud/credentials.db': 'canary gcloud\n',
    '.claude/.credentials.json': 'canary claude\n',
    '.codex/auth.json': 'canary codex\n',
    'notes/secret.txt': 'canary notes\n',
  };
  for (const [file, text] of Object.entries(canaries)) {
    mkdirSync(dirname(join(home, file)), { recursive: true });
    writeFileSync(join(home, file), text);
  }
  // A program the agent plants wherever git would run one: it leaves a mark outside the sandbox's reach.
  const mark = join(outside, 'program-ran');
  const program = join(outside, 'planted-program');
  writeFileSync(program, `#!/bin/sh\n: > '${mark}'\ncat\n`);
  chmodSync(program, 0o755);
  const remote = join(outside, 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', remote]);

  const { root, git } = await codingRepository({ agent: { denyRead: ['~/notes/secret.txt', '.env'] } });
  writeFileSync(join(root, '.env'), 'API_KEY=canary\n');
  if (launcher.user) for (const dir of [root, outside]) handOver(dir, launcher.user);

  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const common = join(root, '.git');
  const digests = () => ({
    guarded: treeDigest(common, guardedGit),
    objects: treeDigest(join(common, 'objects')),
    home: treeDigest(home),
    other: git('rev-parse', 'refs/heads/fed/other'),
  });
  const before = digests();
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    NO_COLOR: '1',
    FED_TELEMETRY_ENABLED: 'false',
    HOME: home,
    FED_HOSTILE_USER_HOME: home,
    FED_HOSTILE_COMMON: common,
    FED_HOSTILE_ADMIN: join(common, 'worktrees', 'app'),
    FED_HOSTILE_STORE: join(root, '.fed', 'git', 'app'),
    FED_HOSTILE_PROGRAM: program,
    FED_HOSTILE_REMOTE: remote,
    FED_NET_OTHER: String(port),
  };
  const fed = (args: string[]) => runAs(launcher.user, home, [process.execPath, FED_BIN, '--root', root, ...args], env);
  try {
    const launched = await fed(['launch', '--team', 'app', '--agent', fakeAgent('hostile-coder'), '--json']);
    if (!launched.out.trim().startsWith('{')) throw new Error(`fed launch exited ${launched.code}: ${launched.out}`);
    const result = JSON.parse(launched.out) as LaunchResult;
    const transcript = readFileSync(result.lastRun.transcriptPath, 'utf8');
    // As the run left them: fed's merge moves main and removes the worktree, as it should.
    const after = digests();
    const review = await fed(['team', 'review', 'app']);
    const approve = await fed(['team', 'review', 'app', '--approve']);
    const merge = await fed(['team', 'merge', 'app']);
    return {
      result,
      transcript,
      port,
      remote,
      guarded: { before: before.guarded, after: after.guarded },
      objects: { before: before.objects, after: after.objects },
      home: { before: before.home, after: treeDigest(home) },
      otherBranch: { before: before.other, after: after.other },
      programRan: existsSync(mark),
      review,
      approve,
      merge,
      merged: git('ls-tree', '--name-only', 'main').split('\n'),
    };
  } finally {
    server.close();
  }
}

/**
 * A git repository with fed initialised and `config` committed: the greeter project, a `.vscode/settings.json`, a submodule
 * `vendor`; two coding teams on worktrees (`app`, whose agent is the hostile coder, with `vendor`
 * initialised in its worktree, and `other`, whose branch the agent must not touch); app's mission sent.
 */
async function codingRepository(config: object): Promise<{ root: string; git: (...args: string[]) => string }> {
  const root = tempDir('fed-hostile-coder-root-');
  const git = (...args: string[]) =>
    // Any owner: the repository is handed over to the user who launches, and read here as root after.
    execFileSync('git', ['-c', 'protocol.file.allow=always', '-c', 'safe.directory=*', ...args], {
      cwd: root,
      encoding: 'utf8',
      stdio: 'pipe',
    }).trim();
  const lib = tempDir('fed-hostile-coder-lib-');
  execFileSync('git', ['init', '-q', '-b', 'main', lib]);
  writeFileSync(join(lib, 'lib.txt'), 'a library\n');
  execFileSync('git', ['-C', lib, '-c', 'user.name=lib', '-c', 'user.email=lib@test', 'add', '-A']);
  execFileSync('git', ['-C', lib, '-c', 'user.name=lib', '-c', 'user.email=lib@test', 'commit', '-qm', 'lib']);
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  mkdirSync(join(root, '.vscode'));
  writeFileSync(join(root, '.vscode', 'settings.json'), '{}\n');
  writeFileSync(join(root, 'README.md'), '# greeter\n');
  git('submodule', 'add', '-q', lib, 'vendor');
  const fed = (...args: string[]) =>
    execFileSync(process.execPath, [FED_BIN, '--root', root, ...args], { cwd: root, stdio: 'pipe', env: quietEnv() });
  fed('init');
  writeFileSync(join(root, 'federate.config.json'), JSON.stringify(config));
  writeFileSync(join(root, '.gitignore'), '.env\n');
  git('add', '-A');
  git('commit', '-qm', 'greeter');
  fed('team', 'onboard', 'app', '--archetype', 'coding', '--placement', 'worktree');
  fed('team', 'onboard', 'other', '--archetype', 'coding', '--placement', 'worktree');
  execFileSync('git', ['-c', 'protocol.file.allow=always', 'submodule', 'update', '-q', '--init'], {
    cwd: join(root, '.fed', 'worktrees', 'app'),
    stdio: 'pipe',
  });
  fed('signal', 'send', '--to', 'app', '--type', 'directive', '--subject', 'Add greet()');
  return { root, git };
}

function quietEnv(): NodeJS.ProcessEnv {
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  return { ...inherited, FED_TELEMETRY_ENABLED: 'false', NO_COLOR: '1' };
}

/** `argv` as `user` (or this process's user), its exit code and its stdout and stderr together. */
function runAs(
  user: UnprivilegedUser | undefined,
  home: string,
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string }> {
  const command = asUser(user, argv, home);
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

describe.each(LAUNCHERS)('a hostile coding agent launched by $label, sandboxed', (launcher) => {
  let running: Promise<CoderRun> | undefined;
  /** The one launch the tests below read, made by the first of them. */
  const run = () => (running ??= runHostileCoder(launcher));
  afterAll(async () => {
    await running?.catch(() => undefined);
  });

  it.skipIf(skipWithoutBubblewrap(SUITE)).each(ATTEMPTS)(
    'is refused: $attempt',
    async ({ attempt, refused }) => {
      const { transcript, port, remote } = await run();
      const named = attempt.replaceAll('<port>', String(port)).replaceAll('<remote>', remote);
      const line = transcript.split('\n').find((text) => text.startsWith(`escape ${named}: `));
      expect(line, transcript).toBeDefined();
      expect(line).not.toMatch(/: ESCAPED$/);
      expect(line!.slice(`escape ${named}: `.length)).toMatch(/^refused \(/);
      expect(line).toMatch(refused);
    },
    180_000,
  );

  it.skipIf(skipWithoutBubblewrap(SUITE))(
    'commits on its branch in the sandbox; fed brings the commit in, and its review, approval and merge take it (needs bwrap)',
    async () => {
      const { result, review, approve, merge, merged, transcript } = await run();
      expect(result, transcript).toMatchObject({ outcome: 'waiting', state: 'pr-review' });
      expect(result.lastRun.sandboxed).toBe(true);
      expect(review.out).toContain('greet.mjs');
      expect(approve.code, approve.out).toBe(0);
      expect(merge.code, merge.out).toBe(0);
      expect(merged).toEqual(expect.arrayContaining(['greet.mjs', '.gitattributes']));
    },
    180_000,
  );

  it.skipIf(skipWithoutBubblewrap(SUITE))(
    "leaves the repository's config, hooks, info/, other branches, packed-refs and submodules' git folders as they were, and every object it had (needs bwrap)",
    async () => {
      const { guarded, objects, otherBranch } = await run();
      expect(guarded.after).toEqual(guarded.before);
      for (const [path, digest] of Object.entries(objects.before)) expect(objects.after[path], path).toBe(digest);
      // The ref it made in its own branch folder stayed there: the other team's branch did not move.
      expect(otherBranch.after).toBe(otherBranch.before);
    },
    180_000,
  );

  it.skipIf(skipWithoutBubblewrap(SUITE))(
    "read and changed nothing of the user's home, and fed's git after it (review, merge) ran nothing it planted (needs bwrap)",
    async () => {
      const { home, programRan } = await run();
      expect(home.after).toEqual(home.before);
      expect(programRan).toBe(false);
    },
    180_000,
  );
});
