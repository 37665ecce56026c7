import { isAbsolute } from 'node:path';
import { adapterFor } from '../../adapters/index.js';
import { FedError, NotAFederationError } from '../../core/errors.js';
import { federationPaths, workspacePaths } from '../../core/layout.js';
import { allowancesNote, unsandboxedNote } from './sandbox-note.js';
import type { Registry, RegistryEntry } from '../../core/schema/registry.js';
import { belowLink, findRootLinks, findWorkspaceLinks } from './runtime-links.js';
import { checkFolders, checkLock, findLeftoverTempFiles, lockFilesIn, permissionFinding } from './file-checks.js';
import type { DoctorFinding, PendingFinding } from '../../ports/doctor-finding.js';
import { checkOnboardings, checkOrphanWorkspaces, checkTeam } from './team-checks.js';
import { teamNetworkPolicy } from '../launch/prepare/sandbox/host-policy.js';
import type { Federation } from '../../engine/context.js';
import { META } from '../../core/schema/common.js';
import type { SignalParty } from '../../core/resolve-party.js';
import { checkSignalBoxes } from './signal-checks.js';
import { checkJournal } from './journal-check.js';
import { checkSchedules } from './schedule-checks.js';
import { checkGitIndexLocks } from './git-checks.js';
import { checkAgentCli } from './agent-cli-checks.js';
import { nodeSupportWarnings } from './node-support-check.js';
import { unreadableFix } from './unreadable-fix.js';
import { serveLeases, serverHost } from '../serve/serve-lease.js';
import { openDoctorSubject, type DoctorSubject } from './config-check.js';
import { listHosts } from '../hosts/list-hosts.js';

export type { DoctorCheck, DoctorFinding } from '../../ports/doctor-finding.js';

export interface DoctorOptions {
  /** Repair what can be repaired safely (`fed doctor --fix`). */
  fix?: boolean;
  /** How long the agent CLI may take to print its version or help (default 10 s). */
  agentCliTimeoutMs?: number;
  /** The Node fed runs on (default `process.version`): one past its end of life is warned about. */
  nodeVersion?: string;
}

export interface DoctorReport {
  root: string;
  findings: DoctorFinding[];
  /** What is worth knowing but not a problem: teams checked on their own machine, the durability risk. */
  notes: string[];
  /**
   * Worth acting on, yet nothing is broken: the agent CLI's help no longer lists a flag its preset
   * passes; the Node fed runs on is past its end of life.
   */
  warnings: string[];
  /** True when nothing is left to fix (no findings, or all of them fixed). */
  healthy: boolean;
  /**
   * The `fed serve` processes running the federation, one per host (none: teams are launched only by
   * `fed launch` and `fed run`). `checked`: its process was seen alive (false: on another host, per its
   * lease). `heardAt`: a host of a federation shared across machines (JetStream), alive by its heartbeat,
   * last heard from then.
   */
  servers: { host: string; pid: number; since: string; checked: boolean; heardAt?: string }[];
}

/**
 * The `fed serve` processes that run the federation (their leases, one per host name): teams are launched
 * by themselves only while one does. A lease left by a server that is gone is a stale lock, found with the others.
 */
function runningServers(root: string): DoctorReport['servers'] {
  return serveLeases(root)
    .filter((lease) => lease.holder !== 'gone' && lease.owner)
    .map((lease) => ({
      host: serverHost(lease.owner!),
      pid: lease.owner!.pid,
      since: lease.owner!.acquiredAt,
      checked: lease.holder === 'alive',
    }));
}

/**
 * On a federation shared across machines, the servers of the other hosts, alive by their heartbeat (this
 * root's leases name only the servers started here), and a note for each lost host that still has teams:
 * nothing runs them until they move.
 */
async function sharedHosts(
  fed: Federation,
  local: DoctorReport['servers'],
): Promise<{ servers: DoctorReport['servers']; notes: string[] }> {
  const view = await listHosts(fed);
  if (!view.shared) return { servers: [], notes: [] };
  const here = new Set(local.map((server) => server.host));
  return {
    servers: view.hosts
      .filter((host) => host.state === 'alive' && !here.has(host.name))
      .map((host) => ({
        host: host.name,
        pid: host.pid,
        since: host.startedAt,
        checked: false,
        heardAt: host.heardAt,
      })),
    notes: view.hosts
      .filter((host) => host.state === 'lost' && host.teams.length > 0)
      .map(
        (host) =>
          `host ${host.name} is lost (not heard from since ${host.heardAt}): nothing runs its teams ${host.teams.join(', ')} until it comes back or they move (fed team move <team> --to <host>, or serve.failover "auto")`,
      ),
  };
}

/**
 * `fed doctor`: check a federation for what crashes, copies and hands can leave behind, and with `fix`
 * repair what fed can repair on its own. Checks: the registry parses; the federation journal's lines are records; the
 * config's schedules fire, to a team there (schedule-checks.ts); every team's workspace is a real
 * directory inside the root (a federation copied elsewhere is relocated), its marker names it, its
 * lifecycle state file is usable; no inbox file reuses the id of a signal fed delivered there; runtime
 * paths (meta's and the teams') that are symbolic links, below which nothing is read or removed;
 * the federation's folders (delivery facts, chat, onboardings, notify) and each party's inbox are folders; onboardings a kill interrupted (finished or removed); folders in the
 * team areas no team owns; locks and leases whose holder is gone; git's index lock no git holds (git-checks.ts); temp files killed writers left; the
 * backend's own checks (its adapter's `doctor`: for JetStream the server and the streams' replicas);
 * whether a `fed serve` runs it (its lease; on JetStream also the other hosts' heartbeats, and the lost hosts);
 * the agent CLIs the config names, the teams' own included (agent-cli-checks.ts: on PATH, its version, the flags its preset passes); which
 * teams' agents run unsandboxed, as the user (sandbox-note.ts); and
 * the Node running fed (node-support-check.ts: past its end of life, a warning). On a
 * backend shared across machines only the teams whose workspaces are below this root are checked on disk:
 * the others are their own machines' business (their lifecycle state, shared in the backend, is still checked). Never prints; the CLI renders the report.
 * `fed` is opened with its config: runDoctorAt checks a federation whose config does not load.
 */
export async function runDoctor(fed: Federation, options: DoctorOptions = {}): Promise<DoctorReport> {
  return checkFederation({ root: fed.root, fed }, options);
}

/**
 * runDoctor of the federation at `root`, which it opens itself: it needs no valid config. One that does not
 * load is a `config` finding, and the rest is checked as far as it can be without (config-check.ts).
 */
export async function runDoctorAt(
  root: string,
  options: DoctorOptions & { env?: NodeJS.ProcessEnv } = {},
): Promise<DoctorReport> {
  return checkFederation(openDoctorSubject(root, options.env ?? process.env), options);
}

async function checkFederation(subject: DoctorSubject, options: DoctorOptions): Promise<DoctorReport> {
  const { root, fed, brokenConfig } = subject;
  // The federation whose config loaded: the checks of what the config says run on it alone.
  const configured = brokenConfig ? undefined : fed;
  const paths = federationPaths(root);
  const pending: PendingFinding[] = [];
  const notes: string[] = [];
  if (brokenConfig) {
    pending.push(brokenConfig.finding);
    notes.push(brokenConfig.note);
  }
  let reachable = true;
  const agentCli = configured && (await checkAgentCli(configured, options.agentCliTimeoutMs));
  pending.push(...(agentCli?.findings ?? []));
  notes.push(...(agentCli?.notes ?? []));
  const checks = configured && (await adapterFor(configured.config).doctor?.(configured.backend));
  if (checks) {
    pending.push(...checks.findings);
    notes.push(...checks.notes);
    reachable = checks.reachable;
  }
  let registry: Registry | undefined;
  // An unreachable server was reported above; reading the registry would only say it again.
  if (fed && reachable) {
    try {
      registry = await fed.backend.registry.read();
    } catch (error) {
      if (!(error instanceof FedError)) throw error;
      const fix =
        error instanceof NotAFederationError
          ? 'create or join it: fed init --name <federationName>'
          : unreadableFix(error, 'restore it from a backup or fix it by hand; fed never resets the registry');
      pending.push({ check: 'registry', path: fed.backend.registry.location, problem: error.message, fix });
    }
    pending.push(...(await checkJournal(fed)));
  }

  // The delivery facts' folder when the backend keeps them in files (a JetStream bucket is no path).
  const delivery = fed?.backend.delivery.location;
  const deliveryDir = delivery !== undefined && isAbsolute(delivery) ? [delivery] : [];
  pending.push(...checkFolders([paths.chat, paths.onboarding, paths.notify, ...deliveryDir]));
  const skipForTemp = new Set([paths.teams, paths.worktrees]);
  // Runtime paths that are links: reported, and nothing below them is looked at (or removed by --fix).
  const rootLinks = findRootLinks(root);
  pending.push(...rootLinks);
  const lockDirs = [paths.fedDir, paths.chat, paths.onboarding, paths.notify, paths.serve].filter(
    (dir) => !belowLink(dir, rootLinks),
  );
  let onboarded: ReadonlySet<string> = new Set();
  if (fed && registry) {
    const onboardings = belowLink(paths.onboarding, rootLinks)
      ? { findings: [], accounted: new Set<string>() }
      : checkOnboardings(fed, registry);
    pending.push(...onboardings.findings);
    onboarded = onboardings.accounted;
    const signalParties: SignalParty[] = [];
    for (const entry of registry.teams) {
      if (configured && teamNetworkPolicy(configured.config.agent, entry.domainId) === 'open')
        notes.push(
          `team "${entry.domainId}": network "open" — a sandboxed agent of it can reach any host (agent.network)`,
        );
      // A team's files fed may not read are that team's finding: the other teams are checked as ever.
      const found: PendingFinding[] = [];
      try {
        const readable = await checkTeamFiles(fed, entry, found, notes);
        if (readable) signalParties.push({ id: entry.domainId, entry });
      } catch (error) {
        const denied = permissionFinding(error, entry.domainId);
        if (denied === undefined) throw error;
        found.push(denied);
      }
      pending.push(...found);
    }
    pending.push(...(await checkOrphanWorkspaces(fed, registry, onboardings.accounted)));
    if (configured) {
      notes.push(...optional(unsandboxedNote(configured, registry)), ...optional(allowancesNote(configured, registry)));
      pending.push(...checkSchedules(configured, registry));
    }
    // Meta's inbox is not read either while a runtime folder of the root is a link (reported above).
    const meta: SignalParty[] = rootLinks.length === 0 ? [{ id: META, entry: undefined }] : [];
    pending.push(...(await checkSignalBoxes(fed, [...meta, ...signalParties])));
  }
  for (const dir of lockDirs) for (const lock of lockFilesIn(dir)) pending.push(...optional(checkLock(lock)));
  pending.push(...checkGitIndexLocks(root, onboarded));
  // Meta's signal boxes, the registry and the chat state are below the root's `.fed/`; the config is in the root itself.
  if (!belowLink(paths.fedDir, rootLinks)) pending.push(...findLeftoverTempFiles(paths.fedDir, { skip: skipForTemp }));
  pending.push(...findLeftoverTempFiles(root, { recursive: false }));

  const findings: DoctorFinding[] = [];
  for (const { repair: offered, ...finding } of pending) {
    // Nothing is repaired while the config does not load (DoctorSubject.brokenConfig).
    const repair = brokenConfig ? undefined : offered;
    const result: DoctorFinding = { ...finding, fixable: repair !== undefined, fixed: false };
    if (options.fix && repair) {
      try {
        await repair();
        result.fixed = true;
      } catch (error) {
        result.fixError = (error as Error).message;
      }
    }
    findings.push(result);
  }
  const now = fed?.now() ?? new Date();
  const warnings = [...nodeSupportWarnings(options.nodeVersion ?? process.version, now), ...(agentCli?.warnings ?? [])];
  const servers = runningServers(root);
  // The hosts' teams are read from the registry: without one (reported above) there is nothing to say.
  if (configured && registry) {
    const shared = await sharedHosts(configured, servers);
    servers.push(...shared.servers);
    notes.push(...shared.notes);
  }
  return { root, findings, notes, warnings, healthy: findings.every((f) => f.fixed), servers };
}

/**
 * A registered team's workspace, marker, state, links, locks and temp files: its findings into `found`;
 * whether its inbox is then to be read (not when its workspace is unusable or a runtime folder a link).
 */
async function checkTeamFiles(
  fed: Federation,
  entry: RegistryEntry,
  found: PendingFinding[],
  notes: string[],
): Promise<boolean> {
  const team = await checkTeam(fed, entry);
  found.push(...team.findings);
  if (team.elsewhere) notes.push(team.elsewhere);
  // Every link of a workspace inside the root, also beside the one its check refused.
  const workspaceLinks = team.workspaceOk || team.linked ? findWorkspaceLinks(entry) : [];
  found.push(...workspaceLinks);
  if (!team.workspaceOk) return false;
  const workspace = workspacePaths(entry.location);
  for (const lock of lockFilesIn(workspace.state)) found.push(...optional(checkLock(lock, entry.domainId)));
  found.push(...findLeftoverTempFiles(workspace.fedDir, { team: entry.domainId }));
  // A party with a linked runtime folder is only reported (above): its inbox is not read.
  return workspaceLinks.length === 0;
}

function optional<T>(value: T | undefined): T[] {
  return value === undefined ? [] : [value];
}
