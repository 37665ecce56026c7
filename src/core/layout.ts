import { join, sep } from 'node:path';
import { CONFIG_FILE } from './schema/config.js';
import { TEAM_MARKER_FILE } from './schema/team-marker.js';
import { STATE_DIR } from './schema/lifecycle-state.js';
import { KEPT_TEAM_FILES_FILE } from './schema/kept-team-files.js';
import { LAUNCH_BASELINE_FILE, LAUNCH_CONTEXT_FILE, LAUNCH_DIR, LAUNCH_PROMPT_FILE } from './schema/launch-context.js';
import { CURRENT_RUN_FILE, RUN_TRANSCRIPTS_DIR, RUNS_JOURNAL_FILE, RUNS_TOTALS_FILE } from './schema/launch-run.js';
import { COMPLETION_REFUSAL_FILE } from './schema/completion-refusal.js';
import { LEARNING_LOG_FILE } from './schema/learning-log.js';
import { COLLECTOR_STATE_FILE } from './schema/telemetry-state.js';
import { ONBOARDING_DIR } from './schema/onboarding-intent.js';
import { ACCOUNT_LIMITS_DIR } from './schema/account-limit.js';
import { BRIDGE_LOCK_FILE, BRIDGE_STATE_FILE, CHAT_DIR, CHAT_MESSAGES_DIR } from './schema/chat.js';
import { NOTIFY_DIR } from './schema/needs-you.js';
import { REMOVED_RUNS_FILE } from './schema/removed-runs.js';

/**
 * Where things live (docs/design/spec.md §4.1). A workspace is meta's (the federation root) or a team's (its registry
 * `location`); both have the same `.fed/` runtime layout for launches, leases and logs. These are the paths every
 * backend has: what a backend keeps in files of its own — file-signal-v1's signal boxes, lifecycle state, registry
 * and federation journal — is its adapter's (src/adapters/file/file-layout.ts).
 */
export const FED_DIR = '.fed';

/** The federation's plan, as meta keeps it (the dashboard shows it). */
export const PLAN_FILE = 'plan.json';

/** `fed serve`'s leases, one per machine serving the federation. */
export const SERVE_DIR = 'serve';

/**
 * The paths under one folder (kept compact: see flattened and PathsUnderFedDir), computed once per folder
 * and frozen: a command asks for the same team's paths dozens of times.
 */
export function memoisedPaths<T extends object>(paths: (dir: string) => T): (dir: string) => Readonly<T> {
  const known = new Map<string, Readonly<T>>();
  return (dir) => {
    let found = known.get(dir);
    if (found === undefined) known.set(dir, (found = Object.freeze(paths(dir))));
    return found;
  };
}

/**
 * The paths as flat strings: `path.join` builds its result piece by piece, and V8 keeps such a string as a
 * tree of its pieces (every `/.fed`, every copy of the root) — kept for the life of the process, the paths
 * of a thousand teams would hold ten times the memory of their characters. (`Array.prototype.join` of
 * two or more strings copies them into one flat string.)
 */
export function flattened<T extends object>(paths: T): T {
  // One JSON round trip for the whole set (every value is a path): each string parsed back is flat, at a
  // third of the cost of re-encoding each path on its own.
  return JSON.parse(JSON.stringify(paths)) as T;
}

export const federationPaths = memoisedPaths((root: string) =>
  flattened({
    root,
    config: join(root, CONFIG_FILE),
    fedDir: join(root, FED_DIR),
    skills: join(root, FED_DIR, 'skills'),
    teams: join(root, FED_DIR, 'teams'),
    worktrees: join(root, FED_DIR, 'worktrees'),
    /** A sandboxed coding team's git of its own: its new objects and its branch (src/engine/registry/team-git-store.ts). */
    gitStores: join(root, FED_DIR, 'git'),
    /** Held by `fed team merge` (src/engine/archetypes/coding/merge.ts): one merge at a time in the main checkout. */
    mergeLock: join(root, FED_DIR, 'merge.lock'),
    gitignore: join(root, FED_DIR, '.gitignore'),
    chat: join(root, FED_DIR, CHAT_DIR),
    chatMessages: join(root, FED_DIR, CHAT_DIR, CHAT_MESSAGES_DIR),
    chatBridgeState: join(root, FED_DIR, CHAT_DIR, BRIDGE_STATE_FILE),
    chatBridgeLock: join(root, FED_DIR, CHAT_DIR, BRIDGE_LOCK_FILE),
    collectorState: join(root, FED_DIR, COLLECTOR_STATE_FILE),
    plan: join(root, FED_DIR, PLAN_FILE),
    /** The runs of removed teams, kept for what the federation spent (src/core/schema/removed-runs.ts). */
    removedRuns: join(root, FED_DIR, REMOVED_RUNS_FILE),
    /** Held by `fed plan --apply` (src/apps/plan/plan.ts): one apply at a time, so each mission is sent once. */
    planLock: join(root, FED_DIR, 'plan.lock'),
    /** What was told to people about the items waiting on them (src/core/schema/needs-you.ts). */
    notify: join(root, FED_DIR, NOTIFY_DIR),
    onboarding: join(root, FED_DIR, ONBOARDING_DIR),
    /** The rate limits CLI accounts met, one file per account, until they reset (`src/core/schema/account-limit.ts`). */
    accountLimits: join(root, FED_DIR, LAUNCH_DIR, ACCOUNT_LIMITS_DIR),
    /** `fed serve`'s lease on this machine (serveLeasePath): a second server for the same federation is refused. */
    serve: join(root, FED_DIR, SERVE_DIR),
  }),
);

/**
 * The lease of the `fed serve` that runs the federation from this root: one, whatever host name the server
 * goes by — two servers of one root, under two host names, would dispatch the same teams' workspaces.
 */
export const serveLeasePath = (root: string) => join(federationPaths(root).serve, 'serve.lock');

/** The file of `account`'s rate limit: its name encoded, so any account name is one plain file name. */
export const accountLimitPath = (root: string, account: string) =>
  join(federationPaths(root).accountLimits, `${encodeURIComponent(account)}.json`);

/** The intent record and the lock of an onboarding of `domain` (`src/core/schema/onboarding-intent.ts`). */
export const onboardingPaths = (root: string, domain: string) => ({
  intent: join(root, FED_DIR, ONBOARDING_DIR, `${domain}.json`),
  lock: join(root, FED_DIR, ONBOARDING_DIR, `${domain}.lock`),
});

/**
 * Where each runtime path of a workspace is under its `.fed`, from the separator on: joined once for
 * every workspace (see workspacePaths).
 */
const UNDER_FED_DIR = (() => {
  const under = (...names: string[]) => ['', ...names].join(sep);
  return {
    marker: under(TEAM_MARKER_FILE),
    /** The leases of the processes that act for the team here (and, on files, its lifecycle state). */
    state: under(STATE_DIR),
    consumerLease: under(STATE_DIR, 'consumer.lease'),
    launchLease: under(STATE_DIR, 'launch.lease'),
    /** Which stored copy of each of the team's own files the workspace holds (src/core/schema/kept-team-files.ts). */
    keptFiles: under(STATE_DIR, KEPT_TEAM_FILES_FILE),
    launch: under(LAUNCH_DIR),
    launchContext: under(LAUNCH_DIR, LAUNCH_CONTEXT_FILE),
    launchPrompt: under(LAUNCH_DIR, LAUNCH_PROMPT_FILE),
    launchBaseline: under(LAUNCH_DIR, LAUNCH_BASELINE_FILE),
    launchBin: under(LAUNCH_DIR, 'bin'),
    /** The socket of the broker that runs a sandboxed agent's fed commands, while it runs. */
    brokerSocket: under(LAUNCH_DIR, 'broker.sock'),
    currentRun: under(LAUNCH_DIR, CURRENT_RUN_FILE),
    continuationPrompt: under(LAUNCH_DIR, 'continue.md'),
    /** The last completion fed's checks refused during the running launch (src/core/schema/completion-refusal.ts). */
    refusedCompletion: under(LAUNCH_DIR, COMPLETION_REFUSAL_FILE),
    /** The prompt of a fix attempt: the refused completion's violations, handed back to the agent. */
    fixPrompt: under(LAUNCH_DIR, 'fix.md'),
    logs: under('logs'),
    agentLog: under('logs', 'agent.log'),
    runsJournal: under('logs', RUNS_JOURNAL_FILE),
    /** The run journal's runs added up so far: a cache (src/core/schema/launch-run.ts). */
    runsTotals: under('logs', RUNS_TOTALS_FILE),
    runTranscripts: under('logs', RUN_TRANSCRIPTS_DIR),
    learningLog: under(LEARNING_LOG_FILE),
  };
})();

export type WorkspacePaths = { readonly workspace: string; readonly fedDir: string } & {
  readonly [K in keyof typeof UNDER_FED_DIR]: string;
};

/**
 * The paths under a workspace's `.fed`, each made when it is read: a getter on the prototype joins `fedDir`
 * and the path's fixed ending. A monitoring cycle over a thousand teams reads a few of each team's ~30 paths,
 * and making them all up front (an object literal of concatenations, frozen and kept) cost it 8 µs a team
 * in code V8 has not optimised yet — once for these, once again for the file backend's (file-layout.ts).
 * The getters are enumerable, so `for…in` and pathEntries list every path; Object.keys and Object.values
 * see only the two own fields.
 */
export class PathsUnderFedDir {
  constructor(
    readonly workspace: string,
    readonly fedDir: string,
  ) {}
}

/** Adds a getter to `prototype` for each of `endings`: the path `fedDir` + its ending. */
export function definePathGetters(prototype: object, endings: Readonly<Record<string, string>>): void {
  for (const [key, ending] of Object.entries(endings))
    Object.defineProperty(prototype, key, {
      get(this: PathsUnderFedDir) {
        return this.fedDir + ending;
      },
      enumerable: true,
    });
}

/** A workspace's paths every backend has (a backend's layout extends it with its own: file-layout.ts). */
export class CoreWorkspacePaths extends PathsUnderFedDir {}
definePathGetters(CoreWorkspacePaths.prototype, UNDER_FED_DIR);

/** Every path of a set (workspacePaths, federationPaths…) by its name, those its getters make included. */
export function pathEntries(paths: object): Array<[string, string]> {
  const entries: Array<[string, string]> = [];
  for (const key in paths) entries.push([key, (paths as Record<string, string>)[key]!]);
  return entries;
}

/**
 * A POSIX path that `path.join` may change: empty, with a `.` or `..` segment (a leading `..` it would
 * keep), a doubled separator or a trailing one. Any other path joined with a name is the two with a
 * separator between.
 */
const NOT_NORMALISED = /(?:^|\/)\.\.?(?:\/|$)|\/\/|\/$|^$/;

/**
 * A workspace's `.fed`. A registry's locations are normalised (fed joins them), so theirs is one
 * concatenation: joining normalises character by character, 4 µs a team in a monitoring cycle. Any other
 * workspace is joined, and that result, which V8 keeps as a tree of its pieces, copied flat (it is kept for
 * the process's life).
 */
export function fedDirOf(workspace: string): string {
  return sep === '/' && !NOT_NORMALISED.test(workspace)
    ? `${workspace}${sep}${FED_DIR}`
    : flattened({ joined: join(workspace, FED_DIR) }).joined;
}

/**
 * `path.join(dir, relative)`: where both are normalised and `relative` is relative, the two with a
 * separator between, without the character-by-character normalising (2–3 µs a call in code V8 has not
 * optimised yet, twice a team in a monitoring cycle: its deliverable, and the workspace fed makes for it).
 */
export function joinPath(dir: string, relative: string): string {
  return sep === '/' && !NOT_NORMALISED.test(dir) && !NOT_NORMALISED.test(relative) && !relative.startsWith('/')
    ? `${dir}/${relative}`
    : join(dir, relative);
}

export const workspacePaths = memoisedPaths(
  (workspace: string) => new CoreWorkspacePaths(workspace, fedDirOf(workspace)) as WorkspacePaths,
);

/** The branch of a team placed in a worktree: its work, reviewed and merged from there. */
export function worktreeBranch(domain: string): string {
  return `fed/${domain}`;
}

/** Workspace of a team for its placement type (docs/design/spec.md §4.1). */
export function teamWorkspacePath(root: string, domain: string, placement: 'directory' | 'worktree'): string {
  const paths = federationPaths(root);
  return joinPath(placement === 'directory' ? paths.teams : paths.worktrees, domain);
}
