/**
 * What fed's own git ignores (docs/threat-model.md, "fed's own git"). fed runs git in the main checkout and
 * on branches an agent wrote — a coding team's worktree, its branch, a codebase an unsandboxed agent could
 * change — and an agent can plant there what git would run: a hook, `core.fsmonitor`, a filter, diff or
 * merge driver named by a `.gitattributes` it wrote and defined in the repository's (or the worktree's)
 * config, a pager, a credential helper, a signing program. Every git fed runs goes through git.ts, which
 * puts these in front of the command; the user's own config (system, global) is trusted as the user's.
 *
 * Each entry says why it is there; a test plants each one (test/integration/fed-git-ignores-planted.test.ts).
 */

/** Set on the command line of every git fed runs: the command line beats every config file. */
export const FORCED_CONFIG: readonly string[] = [
  // A program git runs before it reads the work tree (`git status`, the baseline, a merge).
  'core.fsmonitor=false',
  // No hook of the repository's or anyone's: /dev/null is no folder, so no hook is ever found.
  'core.hooksPath=/dev/null',
  // A pager runs only for a terminal, which fed never gives git; named anyway, with the environment's.
  'core.pager=cat',
  // A merge commit fed makes is not signed: signing runs `gpg.program`, which the repository may name.
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'merge.verifySignatures=false',
  // The diffstat after a merge runs the diff drivers (textconv) of the files it counts.
  'merge.stat=false',
  // A remote URL `ext::<command>` runs that command.
  'protocol.ext.allow=never',
  // Submodules are other repositories, with their own config and hooks.
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  // A repository nested in a work tree (a gitlink an agent added) is looked into by `git status` — with
  // that repository's own config, filters and all. Its commit still counts; what its work tree holds not.
  'diff.ignoreSubmodules=dirty',
  // A program git asks for a password; fed never types one (GIT_TERMINAL_PROMPT=0 too).
  'core.askPass=',
];

/** What the environment of every git fed runs has, whatever fed's own has. */
export const FORCED_ENV: Readonly<Record<string, string>> = {
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  GIT_TERMINAL_PROMPT: '0',
  // `git status` does not rewrite the index it reads: a running agent's index is its own.
  GIT_OPTIONAL_LOCKS: '0',
};

/**
 * Variables fed's git never takes from fed's own environment: they point git at another repository,
 * index or object store than the folder it is run in (a hook that started fed sets some), or name a
 * program (an external diff).
 */
export const DROPPED_ENV: readonly string[] = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_COMMON_DIR',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_EXTERNAL_DIFF',
];

/**
 * The commands that read or write the work tree, or merge: where attributes choose a filter or merge
 * driver (a program) by name. Before these fed lists the config, to switch off the drivers the
 * repository's or worktree's config defines (driverOverrides).
 */
const RUNS_DRIVERS = new Set([
  'add',
  'am',
  'apply',
  'checkout',
  'cherry-pick',
  'commit',
  'diff',
  'merge',
  'read-tree',
  'rebase',
  'reset',
  'restore',
  'revert',
  'stash',
  'status',
  'switch',
  'worktree',
]);

/** The commands that talk to a remote: where a credential helper or an ssh command runs. */
const TALKS_TO_REMOTES = new Set(['clone', 'fetch', 'ls-remote', 'pull', 'push']);

/** The commands that print diffs, given the flags that keep external diff programs and textconv off. */
const SHOWS_DIFFS = new Set(['diff', 'log', 'show']);
const NO_DIFF_PROGRAMS = ['--no-ext-diff', '--no-textconv'];

/** A config entry as `git config --list --show-scope -z` gives it. */
export interface ConfigEntry {
  scope: string;
  key: string;
  value: string;
}

/** The scopes an agent can write: the repository's own config file, and its worktree's. */
const UNTRUSTED_SCOPES = new Set(['local', 'worktree']);

/** Parse `git config --list --show-scope -z`: `scope NUL key LF value NUL`, or `scope NUL key NUL` for a bare key. */
export function parseConfigListing(listing: string): ConfigEntry[] {
  const parts = listing.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i]!;
    const entry = parts[i + 1]!;
    const newline = entry.indexOf('\n');
    entries.push(
      newline < 0
        ? { scope, key: entry.toLowerCase(), value: '' }
        : { scope, key: entry.slice(0, newline).toLowerCase(), value: entry.slice(newline + 1) },
    );
  }
  return entries;
}

/** The subcommand of a git argument list (after global options such as `-C dir`). */
function subcommandOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-C' || arg === '-c') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** Whether fed lists the config before running `args`, to switch off what it defines (driver and remote overrides). */
export function needsConfigListing(args: readonly string[]): boolean {
  const command = subcommandOf(args);
  return command !== undefined && (RUNS_DRIVERS.has(command) || TALKS_TO_REMOTES.has(command));
}

/**
 * `filter.<name>.*` and `merge.<name>.driver` the repository's or worktree's config defines, switched
 * off: an empty filter command is no filter (and not required); a merge driver becomes `exit 1`, which
 * merges nothing and leaves the file conflicted — fed's merge then refuses it, naming the file.
 */
function driverOverrides(entries: readonly ConfigEntry[]): string[] {
  const filters = new Set<string>();
  const merges = new Set<string>();
  for (const { scope, key } of entries) {
    if (!UNTRUSTED_SCOPES.has(scope)) continue;
    const filter = /^filter\.(.+)\.(clean|smudge|process|required)$/.exec(key);
    if (filter) filters.add(filter[1]!);
    const merge = /^merge\.(.+)\.driver$/.exec(key);
    if (merge) merges.add(merge[1]!);
  }
  return [
    ...[...filters].flatMap((name) => [
      `filter.${name}.clean=`,
      `filter.${name}.smudge=`,
      `filter.${name}.process=`,
      `filter.${name}.required=false`,
    ]),
    ...[...merges].map((name) => `merge.${name}.driver=exit 1`),
  ];
}

/**
 * For a command that talks to a remote: the credential helpers are the user's alone (the list reset, then
 * the system's and global ones again, each under its own key), and an ssh command the repository names is
 * replaced by the user's (or plain `ssh`).
 */
function remoteOverrides(entries: readonly ConfigEntry[]): string[] {
  const trusted = entries.filter(({ scope }) => !UNTRUSTED_SCOPES.has(scope) && scope !== 'command');
  const helpers = trusted.filter(({ key }) => /^credential\.(.+\.)?helper$/.test(key));
  const ssh = trusted.filter(({ key }) => key === 'core.sshcommand').at(-1)?.value ?? 'ssh';
  return ['credential.helper=', ...helpers.map(({ key, value }) => `${key}=${value}`), `core.sshCommand=${ssh}`];
}

/**
 * The argument list fed's git runs: the forced config and, given the config listing (for the commands
 * needsConfigListing names), the overrides of what the repository's and worktree's config define — each as
 * `-c key=value` before the command — then the command, with the diff commands' flags that keep external
 * diff programs and textconv off.
 */
export function safeArgs(args: readonly string[], listing?: string): string[] {
  const entries = listing === undefined ? [] : parseConfigListing(listing);
  const command = subcommandOf(args);
  const overrides = [
    ...FORCED_CONFIG,
    ...(command && RUNS_DRIVERS.has(command) ? driverOverrides(entries) : []),
    ...(command && TALKS_TO_REMOTES.has(command) ? remoteOverrides(entries) : []),
  ];
  const at = command === undefined ? -1 : args.indexOf(command);
  const withFlags =
    command && SHOWS_DIFFS.has(command)
      ? [...args.slice(0, at + 1), ...NO_DIFF_PROGRAMS, ...args.slice(at + 1)]
      : [...args];
  return ['--no-pager', ...overrides.flatMap((setting) => ['-c', setting]), ...withFlags];
}

/** The environment fed's git runs with: fed's own, less what points git elsewhere, plus FORCED_ENV. */
export function safeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const safe: NodeJS.ProcessEnv = { ...env, ...FORCED_ENV };
  for (const name of DROPPED_ENV) delete safe[name];
  return safe;
}

/** The argument list that lists the config as safeArgs reads it. */
export const CONFIG_LISTING_ARGS: readonly string[] = ['config', '--list', '--show-scope', '-z'];
