import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { InvalidInputError, NotAFederationError } from '../../core/errors.js';
import { isFederationRoot } from '../../adapters/index.js';
import { readJsonFile } from '../../infra/fs/read-json-file.js';
import { refuseFileForFolder } from '../../infra/fs/folder-option.js';
import { workspacePaths } from '../../core/layout.js';
import { teamMarkerSchema, type TeamMarker } from '../../core/schema/team-marker.js';

/** Where a command acts: the federation root, and the team whose workspace it runs in (if any). */
export interface FederationLocation {
  root: string;
  team: string | undefined;
}

export interface LocateOptions {
  /** `--root`: used as is (no walking up), but a team marker there still leads to its federation. */
  root?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

const ROOT_FIX = "give the federation's folder";

/**
 * The folder `--root` or else `FED_ROOT` names, resolved, and which of them named it; undefined when neither
 * does. An empty `--root` is refused: it is a slip (an unset variable in `--root "$DIR"`), and walking up
 * from the working folder instead would act on whatever federation is found there. An empty `FED_ROOT`
 * counts as unset, as an empty variable does for most programs: `FED_ROOT= fed …` is how a shell clears
 * it for one command, and a launch's environment never sets it empty.
 */
function explicitRoot(options: LocateOptions): { dir: string; source: '--root' | 'FED_ROOT' } | undefined {
  if (options.root === '') throw new InvalidInputError(`--root: empty; ${ROOT_FIX}`);
  const envRoot = (options.env ?? process.env).FED_ROOT || undefined;
  const given = options.root ?? envRoot;
  if (given === undefined) return undefined;
  return {
    dir: resolve(options.cwd ?? process.cwd(), given),
    source: options.root === undefined ? 'FED_ROOT' : '--root',
  };
}

function readMarker(file: string): TeamMarker {
  const marker = readJsonFile(file, teamMarkerSchema, { maxBytes: 64 * 1024 });
  if (!marker) throw new NotAFederationError(`${file} disappeared while it was read; run the command again`);
  return marker;
}

/**
 * What `dir` is: a team workspace (its `.fed/team.json` marker names the federation — checked first,
 * because a worktree can also hold a committed config or registry), a federation root (it has a
 * registry, or a config that keeps the registry in a backend shared across machines such as JetStream), or neither.
 */
function classify(dir: string, env: NodeJS.ProcessEnv): FederationLocation | undefined {
  const marker = workspacePaths(dir).marker;
  if (existsSync(marker)) {
    const { federationRoot, domainId } = readMarker(marker);
    return { root: federationRoot, team: domainId };
  }
  return isFederationRoot(dir, env) ? { root: dir, team: undefined } : undefined;
}

/**
 * Resolve the federation a command acts on: `--root` > `FED_ROOT` > the nearest ancestor of the working
 * directory that is a federation root or team workspace. `FED_TEAM` (set for launched agents) names the
 * team when no marker does. Throws NotAFederationError when nothing is found.
 */
export function locateFederation(options: LocateOptions = {}): FederationLocation {
  const env = options.env ?? process.env;
  const explicit = explicitRoot(options);
  const envTeam = env.FED_TEAM || undefined;
  if (explicit) {
    const { dir, source } = explicit;
    const found = classify(dir, env);
    if (!found) {
      // Looked at only now, for the hint: a file there needs another path, not `fed init` on it.
      refuseFileForFolder(dir, source, ROOT_FIX);
      throw new NotAFederationError(
        `${source} ${dir} is not a federation (no .fed/team-registry.json, nor a federate.config.json with a JetStream backend); run: fed init --root ${dir}`,
      );
    }
    // Run from a team's workspace of that federation, the command is that team's, as without --root: a
    // root named explicitly does not make the caller meta. FED_TEAM, which a launch sets, comes first: a
    // marker in the workspace is the agent's to write, and must not make it another team.
    const team = found.team ?? envTeam ?? workspaceTeam(resolve(options.cwd ?? process.cwd()), found.root);
    return { root: found.root, team };
  }
  const start = resolve(options.cwd ?? process.cwd());
  for (let dir = start; ; dir = dirname(dir)) {
    const found = classify(dir, env);
    if (found) return { root: found.root, team: found.team ?? envTeam };
    if (dirname(dir) === dir) break;
  }
  throw new NotAFederationError(
    `no federation found in ${start} or any parent directory; run fed init there, or pass --root <dir>`,
  );
}

/**
 * The team whose workspace of the federation at `root` holds `dir` (its marker found walking up from
 * `dir` to the root, not included: classify looked there), if any. Workspaces are below the root: a `dir`
 * elsewhere is not looked into.
 */
function workspaceTeam(dir: string, root: string): string | undefined {
  const below = relative(root, dir);
  if (below === '' || below.startsWith('..') || isAbsolute(below)) return undefined;
  for (let at = dir; at !== root && dirname(at) !== at; at = dirname(at)) {
    const marker = workspacePaths(at).marker;
    if (existsSync(marker)) {
      const { federationRoot, domainId } = readMarker(marker);
      return resolve(federationRoot) === resolve(root) ? domainId : undefined;
    }
  }
  return undefined;
}

/** The directory `fed init` should initialise: `--root` > `FED_ROOT` > the working directory. */
export function initTarget(options: LocateOptions = {}): string {
  const explicit = explicitRoot(options);
  if (explicit) refuseFileForFolder(explicit.dir, explicit.source, ROOT_FIX);
  const target = explicit?.dir ?? resolve(options.cwd ?? process.cwd());
  refuseInsideWorkspace(target);
  return target;
}

/**
 * A federation is never made in a team's workspace or below it: its agent works there, and the new
 * federation's config, registry and boxes would be the agent's to change — and every command run there
 * would act on it instead of the team's federation.
 */
function refuseInsideWorkspace(target: string): void {
  for (let dir = target; ; dir = dirname(dir)) {
    const marker = workspacePaths(dir).marker;
    if (existsSync(marker)) {
      let workspace: TeamMarker;
      try {
        workspace = readMarker(marker);
      } catch {
        return; // Not a marker fed can read: not taken for a team's workspace (fed doctor reports it there).
      }
      const { federationRoot, domainId } = workspace;
      throw new InvalidInputError(
        `${target} is ${dir === target ? '' : 'inside '}the workspace of team "${domainId}" (${dir}) of the federation at ${federationRoot}: ` +
          `a federation there would be the team's agent's to change; run fed init in a folder outside it`,
      );
    }
    if (dirname(dir) === dir) return;
  }
}
