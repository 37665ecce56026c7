import { lstatSync, mkdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { RefusedError } from '../../../../core/errors.js';
import { workspacePaths } from '../../../../core/layout.js';
import type { AgentConfig } from '../../../../core/schema/config.js';
import type { RegistryEntry } from '../../../../core/schema/registry.js';
import { isFolder } from '../../../../infra/fs/path-kind.js';
import { packageRoot } from '../../../../infra/package-info.js';

/**
 * A sandboxed agent's home: never the user's (issue 48). Anything an agent can write in the user's home is
 * something the user, git, a shell or fed itself later obeys outside the sandbox — `~/.config/git` after
 * renaming `~/.config`, a program in `~/.local/bin` on the launcher's PATH, `~/.npmrc`, a CLI's hooks in
 * `~/.claude/settings.json` — and no deny-list of such files is ever complete. So inside the sandbox the
 * user's home is read-only like the rest of the machine, and `$HOME` is a folder of the team's own, kept
 * between runs (a CLI's sessions survive for `--resume`), where only what the CLI needs to authenticate
 * comes from the user's home, each file mounted read-only: the preset's list, or `agent.homeFiles`.
 */
export interface AgentHome {
  /** The agent's `$HOME`: writable in the sandbox, its own. */
  home: string;
  /** The files of the user's home it sees, read-only, at the same place under `home`. */
  files: readonly { source: string; target: string }[];
  /**
   * `$HOME` and each variable that moves a CLI's folder or a build cache out of it (XDG_CONFIG_HOME,
   * CODEX_HOME, npm_config_cache…), inside `home`; and where the user's toolchains are (RUSTUP_HOME…).
   */
  env: Readonly<Record<string, string>>;
}

/**
 * Variables that move a folder of the home elsewhere, by the folder they stand for: the XDG ones, and a
 * preset's own (`homeVariables`: CODEX_HOME for `.codex`). The user's value says where that folder's
 * files come from; the agent's points into its own home.
 */
export type HomeVariables = Readonly<Record<string, string>>;

const XDG_FOLDERS: HomeVariables = {
  XDG_CONFIG_HOME: '.config',
  XDG_DATA_HOME: '.local/share',
  XDG_STATE_HOME: '.local/state',
  XDG_CACHE_HOME: '.cache',
};

/**
 * The caches a project's build writes, by ecosystem, named inside the agent's home (the user's is read-only
 * in the sandbox: a cache an environment variable of the user's puts there could not be written). Each
 * tool makes its folder when it first writes one.
 */
const BUILD_CACHES: HomeVariables = {
  npm_config_cache: '.npm',
  YARN_CACHE_FOLDER: '.cache/yarn',
  PIP_CACHE_DIR: '.cache/pip',
  UV_CACHE_DIR: '.cache/uv',
  CARGO_HOME: '.cargo',
  GOPATH: 'go',
  GOMODCACHE: 'go/pkg/mod',
  GOCACHE: '.cache/go-build',
  GRADLE_USER_HOME: '.gradle',
};

/**
 * Where version managers keep toolchains in a home by default: with `$HOME` the agent's own, a toolchain
 * installed in the user's (rustup's, pyenv's, nvm's…) would no longer be found, so each that the user has
 * and names no other place for is named where it is — read-only, as the whole user's home is.
 */
const TOOLCHAIN_HOMES: HomeVariables = {
  RUSTUP_HOME: '.rustup',
  PYENV_ROOT: '.pyenv',
  NVM_DIR: '.nvm',
  SDKMAN_DIR: '.sdkman',
  ASDF_DATA_DIR: '.asdf',
  VOLTA_HOME: '.volta',
  BUN_INSTALL: '.bun',
};

/** The team's agent home: `<agent.home>/<team>` when configured (relative to the root), else the workspace's `.fed/home`. */
export function agentHomePath(root: string, team: RegistryEntry, agent: AgentConfig): string {
  if (agent.home === undefined) return join(workspacePaths(team.location).fedDir, 'home');
  return join(isAbsolute(agent.home) ? agent.home : resolve(root, agent.home), team.domainId);
}

/**
 * The system's own trees: a home there, or a folder of homes, would make a system folder writable from the
 * sandbox (`/usr/local` with a team named `bin`).
 */
const SYSTEM_TREES = ['/bin', '/boot', '/etc', '/lib', '/lib32', '/lib64', '/libx32', '/root', '/run', '/sbin', '/usr'];

/**
 * The kernel's own filesystems: no home can be made there (Node's recursive mkdir on /proc loops forever,
 * at full CPU and deaf to SIGTERM), so a home there is refused before anything touches it.
 */
const KERNEL_TREES = ['/proc', '/sys', '/dev'];

/**
 * Folders that hold others' folders: as `agent.home` a team's home would be one of those (`/home` with a
 * team named after a user, `/` with one named `etc`).
 */
const SHARED_FOLDERS = ['/', '/home', '/media', '/mnt', '/opt', '/srv', '/tmp', '/var', '/var/lib', '/var/tmp'];

/** How `path` stands to `other`: it is it, holds it, or lies inside it (or none of these). */
type Relation = 'is' | 'holds' | 'lies inside';

function relation(path: string, other: string): Relation | undefined {
  if (path === other) return 'is';
  if (isWithin(other, path)) return 'holds';
  if (isWithin(path, other)) return 'lies inside';
  return undefined;
}

/** `path` with its links resolved as far as it exists: what it is, or will be once made. */
function realPath(path: string): string {
  const rest: string[] = [];
  for (let existing = resolve(path); ; existing = dirname(existing)) {
    try {
      return join(realpathSync(existing), ...rest.reverse());
    } catch {
      if (existing === dirname(existing)) return resolve(path);
      rest.push(basename(existing));
    }
  }
}

/**
 * A configured `agent.home` checked before anything is made for the launch or its lifecycle moves (the
 * default, the workspace's `.fed/home`, is the team's own). The team's home (`<agent.home>/<team>`, links
 * resolved) is writable in the sandbox, so it must be a folder of its own: never the federation root, a
 * folder holding it or one inside it (the codebase, `.fed/`: other teams' workspaces, meta's inbox), nor
 * fed's installation, nor the user's home (is it, holds it or lies inside it: the sandbox keeps it
 * read-only), nor a system folder or one of the kernel's (`/proc`); and `agent.home` is never a folder that holds others' (`/`,
 * `/home`, `/var`).
 */
export function refuseAgentHome(
  root: string,
  team: RegistryEntry,
  agent: AgentConfig,
  userEnv: NodeJS.ProcessEnv,
): void {
  if (agent.home === undefined) return;
  const home = agentHomePath(root, team, agent);
  const holder = dirname(home);
  const refuse = (problem: string) =>
    new RefusedError(
      'AGENT_HOME',
      `agent.home (${agent.home}) puts team "${team.domainId}"'s agent home, which its agent writes, at ${home}, ${problem}; set agent.home in federate.config.json to a folder of its own outside the federation root (such as /var/lib/fed-homes), or leave agent.home out (each team's home is then .fed/home in its workspace)`,
    );
  const kernel = (path: string) => KERNEL_TREES.find((tree) => isWithin(path, tree));
  const inKernel = (path: string) =>
    refuse(`inside ${kernel(path)}, a filesystem of the kernel's where no folder of the agent's can be made`);
  // Looked at as written before its links are resolved: nothing there is touched, not even to resolve it.
  if (kernel(home)) throw inKernel(home);
  const homes = [...new Set([home, realPath(home)])];
  for (const path of homes) if (kernel(path)) throw inKernel(path);
  // Without HOME (a service, cron), the account's home is the user's home all the same.
  const userHome = userEnv.HOME || accountHome();
  const codebase =
    "the sandbox keeps that read-only, and a home there would let the agent write the codebase or fed's own files";
  const kept: [string, string, string][] = [
    [realPath(root), 'the federation root', codebase],
    [realPath(packageRoot()), "fed's installation", codebase],
  ];
  if (userHome && userHome !== '/')
    kept.push([
      realPath(userHome),
      "the user's home",
      "the sandbox keeps the user's home read-only: the user, git or a shell would obey what an agent wrote there",
    ]);
  for (const path of homes)
    for (const [folder, name, why] of kept) {
      const found = relation(path, folder);
      if (found) throw refuse(`which ${found} ${name} (${folder}): ${why}`);
    }
  // After those: the installation or a home may itself lie directly in a shared folder (a checkout in /tmp).
  for (const path of new Set([holder, realPath(holder)])) {
    if (SHARED_FOLDERS.includes(path))
      throw refuse(
        `directly in ${path === '/' ? 'the filesystem root' : path}, which holds others' folders: a team's home there could be one of them`,
      );
  }
  for (const path of homes) {
    const system = SYSTEM_TREES.find((tree) => isWithin(path, tree));
    if (system) throw refuse(`inside the system's ${system}, which the sandbox keeps read-only`);
  }
  const notFolder = notAFolder(home);
  if (notFolder) throw refuse(notFolder);
}

/** The home of the account fed runs as, from the system's user database; undefined when it has none. */
function accountHome(): string | undefined {
  try {
    return userInfo().homedir || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why no folder can be (or be made) at `home`, if so: it, or the first of its parents there is, is not a
 * folder — a file, a link (the home itself: bwrap would follow it), a parent that is a link to nothing —
 * or cannot be looked at.
 */
function notAFolder(home: string): string | undefined {
  for (let path = home; ; path = dirname(path)) {
    let entry;
    try {
      entry = lstatSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOENT' || code === 'ENOTDIR') && path !== dirname(path)) continue;
      return `but ${path} cannot be looked at (${code}), so no folder can be made there`;
    }
    if (entry.isDirectory()) return undefined;
    const what = entry.isSymbolicLink() ? 'a link' : entry.isFile() ? 'a file' : 'not a folder';
    if (path === home)
      return `which is ${what}, not a folder: remove it and launch again, or choose another agent.home`;
    if (entry.isSymbolicLink() && isFolder(path)) return undefined;
    return `but ${path} is ${what === 'a link' ? 'a link to no folder' : what}, so no folder can be made there`;
  }
}

/** Where the user keeps the home file `file`: under the folder a variable of `userEnv` moved it to, else under `userHome`. */
function userSource(file: string, userHome: string, userEnv: NodeJS.ProcessEnv, variables: HomeVariables): string {
  for (const [name, folder] of Object.entries(variables)) {
    const moved = userEnv[name];
    if (moved && isAbsolute(moved) && file.startsWith(`${folder}/`)) return join(moved, file.slice(folder.length + 1));
  }
  return join(userHome, file);
}

/**
 * The team's agent home made ready for a run: the folder (never through a link: `--bind` would follow it
 * to whatever it names, the user's home say), the folders its variables name, and, for each of
 * `homeFiles` the user has (in `userEnv`'s HOME, or where a variable of it moved the file's folder), the
 * empty file it is mounted on — links or folders the agent left on their way replaced, so that bwrap never
 * creates a mount point outside the home. No user home (or `/`): nothing is brought in. A configured
 * home was checked before the launch began (refuseAgentHome); the default lies in the team's own workspace.
 */
export function prepareAgentHome(
  home: string,
  userEnv: NodeJS.ProcessEnv,
  homeFiles: readonly string[],
  presetVariables: HomeVariables = {},
): AgentHome {
  const userHome = userEnv.HOME;
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (!lstatSync(home).isDirectory())
    throw new RefusedError(
      'AGENT_HOME',
      `the agent's home ${home} is not a folder (a link, or a file, was left there); remove it and launch again`,
    );
  const variables = { ...XDG_FOLDERS, ...presetVariables };
  const env: Record<string, string> = { HOME: home };
  for (const [name, folder] of Object.entries(variables)) {
    env[name] = join(home, folder);
    realFolders(home, env[name]);
  }
  for (const [name, folder] of Object.entries(BUILD_CACHES)) env[name] = join(home, folder);
  const files: { source: string; target: string }[] = [];
  if (userHome === undefined || userHome === '/') return { home, files, env };
  for (const [name, folder] of Object.entries(TOOLCHAIN_HOMES))
    if (userEnv[name] === undefined && isFolder(join(userHome, folder))) env[name] = join(userHome, folder);
  for (const file of homeFiles) {
    const source = userSource(file, userHome, userEnv, variables);
    if (!isRegularFile(source)) continue;
    const target = join(home, file);
    realFolders(home, dirname(target));
    if (!isRegularFile(target, false)) {
      rmSync(target, { recursive: true, force: true });
      writeFileSync(target, '', { mode: 0o600, flag: 'wx' });
    }
    files.push({ source, target });
  }
  return { home, files, env };
}

/** The bwrap arguments that mount the home writable and the user's files in it read-only (after the workspace's). */
export function agentHomeArgs(home: AgentHome): string[] {
  return [
    '--bind',
    home.home,
    home.home,
    ...home.files.flatMap(({ source, target }) => ['--ro-bind', source, target]),
    ...Object.entries(home.env).flatMap(([name, value]) => ['--setenv', name, value]),
  ];
}

/** Every folder from `top` (a real folder) down to `folder` made a real folder: a link or file in the way is removed. */
function realFolders(top: string, folder: string): void {
  if (folder === top) return;
  realFolders(top, dirname(folder));
  try {
    if (lstatSync(folder).isDirectory()) return;
    rmSync(folder, { force: true });
  } catch {
    // Not there: made below.
  }
  mkdirSync(folder, { mode: 0o700 });
}

function isRegularFile(path: string, followLinks = true): boolean {
  try {
    return (followLinks ? statSync(path) : lstatSync(path)).isFile();
  } catch {
    return false;
  }
}

function isWithin(path: string, folder: string): boolean {
  const inner = resolve(path);
  const outer = resolve(folder);
  return inner === outer || inner.startsWith(`${outer}/`);
}
