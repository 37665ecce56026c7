import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { git, gitAsync, gitRemote, packageRoot } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * fed's own git ignores what an agent could plant in a repository or worktree it wrote (issue 80 item 5;
 * src/engine/registry/git-safety.ts): each key below is planted in a real repository, run once with plain
 * git — which obeys it, so the test can fail — and then through fed's git helper, which must run nothing
 * of it. The program planted touches a canary file; the command fed runs must still do its job.
 */

/** A repository with two commits on main and a branch `feature` that changed the same file. */
function repository(): {
  dir: string;
  plain: (...args: string[]) => string;
  canary: string;
  program: string;
  quitter: string;
} {
  const dir = tempDir('fed-planted-');
  const canary = join(tempDir('fed-canary-'), 'ran');
  const plain = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  plain('init', '-q', '-b', 'main');
  plain('config', 'user.email', 'fed@test');
  plain('config', 'user.name', 'fed test');
  writeFileSync(join(dir, 'a.txt'), 'one\ntwo\nthree\n');
  plain('add', '-A');
  plain('commit', '-qm', 'first');
  plain('checkout', '-qb', 'feature');
  writeFileSync(join(dir, 'a.txt'), 'one\ntwo\nthree, on feature\n');
  plain('commit', '-qam', 'feature');
  plain('checkout', '-q', 'main');
  writeFileSync(join(dir, 'a.txt'), 'one, on main\ntwo\nthree\n');
  plain('commit', '-qam', 'main');
  // The agent's program: it leaves a mark, and answers as the key's program would (filters pass content on).
  const program = join(tempDir('fed-planted-bin-'), 'planted');
  writeFileSync(program, `#!/bin/sh\n: > '${canary}'\ncat\n`);
  // One that leaves its mark and fails, where git would wait on what the program says (an ssh command).
  const quitter = `${program}-quits`;
  writeFileSync(quitter, `#!/bin/sh\n: > '${canary}'\nexit 1\n`);
  for (const file of [program, quitter]) chmodSync(file, 0o755);
  return { dir, plain, canary, program, quitter };
}

type Repo = ReturnType<typeof repository>;

interface PlantedKey {
  what: string;
  plant: (repo: Repo) => void;
  /** What fed runs: through fed's helper (`git`, `gitAsync`, `gitRemote`). */
  fed: (repo: Repo) => Promise<unknown>;
  /** The same command with plain git, which runs what was planted. */
  plainly: (repo: Repo) => unknown;
  /** fed's command still did its job. */
  done?: (repo: Repo, result: unknown) => void;
}

const modify = ({ dir }: Repo) => writeFileSync(join(dir, 'a.txt'), 'one, on main\ntwo\nthree\nfour\n');
const attributes = (repo: Repo, line: string) => {
  writeFileSync(join(repo.dir, '.gitattributes'), `${line}\n`);
  repo.plain('add', '.gitattributes');
  repo.plain('commit', '-qm', 'attributes');
};
const quiet = (run: () => unknown) => {
  try {
    run();
  } catch {
    // The planted program may make plain git fail too: it ran, which is what the control shows.
  }
};

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A local HTTP git remote that asks for credentials (401), so git runs its credential helpers. */
async function remoteAskingForCredentials(): Promise<string> {
  const server = createServer((_, res) => {
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="fed-test"' });
    res.end();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/repo.git`;
}

const PLANTED: PlantedKey[] = [
  {
    what: 'core.fsmonitor in the repository config: `git status` runs it',
    plant: ({ plain, program }) => plain('config', 'core.fsmonitor', program),
    fed: async ({ dir }) => git(dir, ['status', '--porcelain']),
    plainly: ({ plain }) => quiet(() => plain('status', '--porcelain')),
  },
  {
    what: 'a hook in .git/hooks (reference-transaction): every ref update runs it',
    plant: ({ dir, canary }) => {
      writeFileSync(join(dir, '.git', 'hooks', 'reference-transaction'), `#!/bin/sh\n: > '${canary}'\n`);
      chmodSync(join(dir, '.git', 'hooks', 'reference-transaction'), 0o755);
    },
    fed: async ({ dir }) => gitAsync(dir, ['branch', 'made-by-fed']),
    plainly: ({ plain }) => plain('branch', 'made-by-plain-git'),
    done: ({ plain }) => expect(plain('branch', '--list', 'made-by-fed')).toContain('made-by-fed'),
  },
  {
    what: 'core.hooksPath in the repository config, to a folder of hooks: a merge runs its post-merge',
    plant: ({ plain, canary }) => {
      const hooks = tempDir('fed-planted-hooks-');
      writeFileSync(join(hooks, 'post-merge'), `#!/bin/sh\n: > '${canary}'\n`);
      chmodSync(join(hooks, 'post-merge'), 0o755);
      plain('config', 'core.hooksPath', hooks);
    },
    fed: async ({ dir }) => gitAsync(dir, ['merge', '--no-edit', 'feature']),
    plainly: ({ plain }) => plain('merge', '--no-edit', 'feature'),
    done: ({ plain }) => expect(plain('log', '-1', '--format=%s')).toMatch(/^Merge branch 'feature'/),
  },
  {
    what: "a clean filter the repository config defines and the work tree's .gitattributes names: diffing the work tree runs it",
    plant: (repo) => {
      attributes(repo, '* filter=planted');
      repo.plain('config', 'filter.planted.clean', repo.program);
      modify(repo);
    },
    fed: async ({ dir }) => gitAsync(dir, ['diff'], { raw: true }),
    plainly: ({ plain }) => plain('diff'),
    done: (_, diff) => expect(diff).toContain('+four'),
  },
  {
    what: 'a smudge filter: checking files out (a merge, a new worktree) runs it',
    plant: (repo) => {
      attributes(repo, '* filter=planted');
      repo.plain('config', 'filter.planted.smudge', repo.program);
      repo.plain('config', 'filter.planted.required', 'true');
    },
    fed: async ({ dir }) => gitAsync(dir, ['worktree', 'add', '-q', '--detach', join(tempDir(), 'by-fed'), 'main']),
    plainly: ({ plain }) => quiet(() => plain('worktree', 'add', '-q', '--detach', join(tempDir(), 'by-git'), 'main')),
  },
  {
    what: 'a long-running filter process: diffing the work tree starts it',
    plant: (repo) => {
      attributes(repo, '* filter=planted');
      repo.plain('config', 'filter.planted.process', repo.program);
      modify(repo);
    },
    fed: async ({ dir }) => gitAsync(dir, ['diff'], { raw: true }),
    plainly: ({ plain }) => quiet(() => plain('diff')),
  },
  {
    what: 'a merge driver the repository config defines and .gitattributes names: a merge runs it',
    plant: (repo) => {
      attributes(repo, 'a.txt merge=planted');
      repo.plain('config', 'merge.planted.driver', repo.program);
    },
    fed: ({ dir }) => gitAsync(dir, ['merge', '--no-edit', 'feature']).catch((error: Error) => error),
    plainly: ({ plain }) => quiet(() => plain('merge', '--no-edit', 'feature')),
    // The planted driver did not merge: the file is left conflicted (fed's merge then refuses it by name).
    done: ({ plain }) => expect(plain('diff', '--name-only', '--diff-filter=U')).toContain('a.txt'),
  },
  {
    what: 'diff.external in the repository config: the diff of a review runs it',
    plant: ({ plain, program }) => plain('config', 'diff.external', program),
    fed: async ({ dir }) => gitAsync(dir, ['diff', 'main...feature'], { raw: true }),
    plainly: ({ plain }) => plain('diff', 'main...feature'),
    done: (_, diff) => expect(diff).toContain('+three, on feature'),
  },
  {
    what: 'a diff driver command .gitattributes names: the diff of a review runs it',
    plant: (repo) => {
      attributes(repo, 'a.txt diff=planted');
      repo.plain('config', 'diff.planted.command', repo.program);
    },
    fed: async ({ dir }) => gitAsync(dir, ['diff', 'main...feature'], { raw: true }),
    plainly: ({ plain }) => plain('diff', 'main...feature'),
    done: (_, diff) => expect(diff).toContain('+three, on feature'),
  },
  {
    what: 'a textconv .gitattributes names: the diff and the log of a review run it',
    plant: (repo) => {
      attributes(repo, 'a.txt diff=planted');
      repo.plain('config', 'diff.planted.textconv', repo.program);
    },
    fed: async ({ dir }) => [
      await gitAsync(dir, ['diff', 'main...feature'], { raw: true }),
      await gitAsync(dir, ['log', '-p', '-1', 'feature']),
    ],
    plainly: ({ plain }) => plain('diff', 'main...feature'),
  },
  {
    what: 'core.pager and pager.diff in the repository config: a diff on a terminal pages through them',
    plant: ({ plain, program }) => {
      plain('config', 'core.pager', program);
      plain('config', 'pager.diff', program);
    },
    // On a terminal of its own (util-linux script): fed's git is given none, but were it, it would not page.
    fed: async ({ dir }) => onTerminal(dir, `${process.execPath} ${fedDiffScript()} ${dir}`),
    plainly: ({ dir }) => onTerminal(dir, 'git diff main...feature'),
  },
  {
    what: 'a credential helper in the repository config: a command that talks to a remote runs it',
    plant: ({ plain, program }) => plain('config', 'credential.helper', `!${program}`),
    fed: async ({ dir }) => gitRemote(dir, ['ls-remote', await remoteAskingForCredentials()], 10_000).catch(() => 0),
    plainly: async ({ dir }) => plainRemote(dir, await remoteAskingForCredentials()),
  },
  {
    what: 'commit.gpgSign with gpg.program in the repository config: a merge commit is signed by it',
    plant: ({ plain, program }) => {
      plain('config', 'commit.gpgSign', 'true');
      plain('config', 'gpg.program', program);
    },
    fed: async ({ dir }) => gitAsync(dir, ['merge', '--no-ff', '--no-edit', '-m', 'merged by fed', 'feature']),
    plainly: ({ plain }) => quiet(() => plain('merge', '--no-ff', '--no-edit', 'feature')),
    done: ({ plain }) => expect(plain('log', '-1', '--format=%s')).toBe('merged by fed\n'),
  },
  {
    what: 'extensions.worktreeConfig turned on, and core.fsmonitor in the worktree config: status runs it',
    plant: ({ plain, program, dir }) => {
      plain('config', 'extensions.worktreeConfig', 'true');
      writeFileSync(join(dir, '.git', 'config.worktree'), `[core]\n\tfsmonitor = ${program}\n`);
    },
    fed: async ({ dir }) => git(dir, ['status', '--porcelain']),
    plainly: ({ plain }) => quiet(() => plain('status', '--porcelain')),
  },
  {
    what: 'a repository nested in the work tree, added as a gitlink, with a clean filter of its own: status looks into it',
    plant: ({ dir, plain, program }) => {
      const nested = join(dir, 'nested');
      const inNested = (...args: string[]) => execFileSync('git', ['-C', nested, ...args], { stdio: 'ignore' });
      execFileSync('git', ['init', '-q', nested]);
      writeFileSync(join(nested, 'b.txt'), 'hi\n');
      writeFileSync(join(nested, '.gitattributes'), 'b.txt filter=planted\n');
      inNested('add', '-A');
      inNested('-c', 'user.name=agent', '-c', 'user.email=agent@test', 'commit', '-qm', 'nested');
      inNested('config', 'filter.planted.clean', program);
      quiet(() => plain('add', 'nested'));
      plain('commit', '-qm', 'gitlink');
      // The same size, so git must read the file (through its clean filter) to know it changed.
      writeFileSync(join(nested, 'b.txt'), 'ho\n');
    },
    fed: async ({ dir }) => git(dir, ['status', '--porcelain']),
    plainly: ({ plain }) => quiet(() => plain('status', '--porcelain')),
  },
  {
    what: 'core.sshCommand in the repository config: a command that talks to an ssh remote runs it',
    plant: ({ plain, quitter }) => plain('config', 'core.sshCommand', quitter),
    fed: ({ dir }) => gitRemote(dir, ['ls-remote', 'ssh://git@127.0.0.1:1/repo.git'], 10_000).catch(() => 0),
    plainly: ({ plain }) => quiet(() => plain('ls-remote', 'ssh://git@127.0.0.1:1/repo.git')),
  },
  {
    what: 'protocol.ext.allow in the repository config, and a remote `ext::` URL: talking to it runs its command',
    plant: ({ plain, canary }) => {
      plain('config', 'protocol.ext.allow', 'always');
      plain('remote', 'add', 'origin', `ext::sh -c touch% ${canary}`);
    },
    fed: ({ dir }) => gitRemote(dir, ['ls-remote', 'origin'], 10_000).catch(() => 0),
    plainly: ({ plain }) => quiet(() => plain('ls-remote', 'origin')),
  },
];

/** `command` on a terminal of its own, in `dir`. */
function onTerminal(dir: string, command: string): void {
  quiet(() =>
    execFileSync('script', ['-qec', command, '/dev/null'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
    }),
  );
}

/** A script that runs fed's git helper (the built one) for a diff, in the folder it is given (for onTerminal). */
function fedDiffScript(): string {
  const file = join(tempDir(), 'fed-diff.mjs');
  const helper = join(packageRoot(), 'dist', 'src', 'engine', 'registry', 'git.js');
  writeFileSync(
    file,
    `import { gitAsync } from '${helper}';\nprocess.stdout.write(await gitAsync(process.argv[2], ['diff', 'main...feature'], { raw: true }));\n`,
  );
  return file;
}

describe("fed's own git runs nothing an agent planted in the repository or worktree config (issue 80)", () => {
  it.each(PLANTED)('$what', async ({ plant, fed, plainly, done }) => {
    const control = repository();
    plant(control);
    await plainly(control);
    expect(existsSync(control.canary), 'plain git runs what was planted').toBe(true);

    const repo = repository();
    plant(repo);
    const result = await fed(repo);
    expect(existsSync(repo.canary), `fed's git ran what was planted`).toBe(false);
    done?.(repo, result);
  });

  it("the credential helpers of the user's own config (global) are still run for a remote", async () => {
    const repo = repository();
    const global = join(tempDir(), 'gitconfig');
    writeFileSync(global, `[credential]\n\thelper = !${repo.program}\n`);
    const url = await remoteAskingForCredentials();
    // Plain git runs a planted repository helper: the control of the helper row above.
    const planted = repository();
    planted.plain('config', 'credential.helper', `!${planted.program}`);
    await plainRemote(planted.dir, url);
    expect(existsSync(planted.canary)).toBe(true);
    // fed runs the user's.
    const previous = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = global;
    try {
      await gitRemote(repo.dir, ['ls-remote', url], 10_000).catch(() => 0);
    } finally {
      if (previous === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = previous;
    }
    expect(existsSync(repo.canary)).toBe(true);
    expect(readFileSync(global, 'utf8')).toContain('helper');
  });

  it('an alias never stands for a command fed runs (git itself does not let one hide a command)', () => {
    const repo = repository();
    repo.plain('config', 'alias.status', `!${repo.program}`);
    expect(git(repo.dir, ['status', '--porcelain'])).toBe('');
    quiet(() => repo.plain('status'));
    expect(existsSync(repo.canary)).toBe(false);
  });
});

/**
 * Plain `git ls-remote <url>` beside this process's event loop (the remote is served from it), with no
 * terminal prompt for the credentials it is refused.
 */
async function plainRemote(cwd: string, url: string): Promise<void> {
  await promisify(execFile)('git', ['ls-remote', url], {
    cwd,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
  }).catch(() => undefined);
}
