import { lstatSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { RefusedError } from '../../core/errors.js';
import { workspacePaths } from '../../core/layout.js';
import type { AgentConfig } from '../../core/schema/config.js';
import type { RegistryEntry } from '../../core/schema/registry.js';

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
}

/** The team's agent home: `<agent.home>/<team>` when configured (relative to the root), else the workspace's `.fed/home`. */
export function agentHomePath(root: string, team: RegistryEntry, agent: AgentConfig): string {
  if (agent.home === undefined) return join(workspacePaths(team.location).fedDir, 'home');
  return join(isAbsolute(agent.home) ? agent.home : resolve(root, agent.home), team.domainId);
}

/** The environment that puts a CLI's files in `home`: `$HOME` and the XDG folders, which would name the user's. */
export function agentHomeEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
}

/**
 * The team's agent home made ready for a run: the folder (never through a link: `--bind` would follow it
 * to whatever it names, the user's home say) and, for each of `homeFiles` the user has, the empty file it
 * is mounted on — links or folders the agent left on their way replaced, so that bwrap never creates a
 * mount point outside the home. `userHome` undefined or `/`: nothing is brought in.
 */
export function prepareAgentHome(home: string, userHome: string | undefined, homeFiles: readonly string[]): AgentHome {
  if (userHome !== undefined && userHome !== '/' && (isWithin(home, userHome) || isWithin(userHome, home)))
    throw new RefusedError(
      'AGENT_HOME',
      `agent.home puts the agent's home at ${home}, which is the user's home (${userHome}) or holds it: the sandbox keeps the user's home read-only; choose a folder of its own (or leave agent.home out)`,
    );
  mkdirSync(home, { recursive: true, mode: 0o700 });
  if (!lstatSync(home).isDirectory())
    throw new RefusedError(
      'AGENT_HOME',
      `the agent's home ${home} is not a folder (a link, or a file, was left there); remove it and launch again`,
    );
  const files: { source: string; target: string }[] = [];
  if (userHome === undefined || userHome === '/') return { home, files };
  for (const file of homeFiles) {
    const source = join(userHome, file);
    if (!isRegularFile(source)) continue;
    const target = join(home, file);
    realFolders(home, dirname(target));
    if (!isRegularFile(target, false)) {
      rmSync(target, { recursive: true, force: true });
      writeFileSync(target, '', { mode: 0o600, flag: 'wx' });
    }
    files.push({ source, target });
  }
  return { home, files };
}

/** The bwrap arguments that mount the home writable and the user's files in it read-only (after the workspace's). */
export function agentHomeArgs(home: AgentHome): string[] {
  return [
    '--bind',
    home.home,
    home.home,
    ...home.files.flatMap(({ source, target }) => ['--ro-bind', source, target]),
    ...Object.entries(agentHomeEnv(home.home)).flatMap(([name, value]) => ['--setenv', name, value]),
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
