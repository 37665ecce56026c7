import { accessSync, constants, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { FileSystemError } from '../../core/errors.js';
import { createFileExclusive } from '../../infra/fs/atomic-write.js';
import { toJsonText } from '../../core/json-text.js';
import { federationPaths } from '../../core/layout.js';
import { adapterFor, BACKEND_ENV_OVERRIDES, loadFederationConfig } from '../../adapters/index.js';
import { applyEnvOverrides, ENV_OTLP_ENDPOINT, ENV_TELEMETRY_ENABLED } from '../../infra/config/env-overrides.js';
import { probeCollector, type CollectorProbe } from '../../infra/telemetry/collector-probe.js';
import { validateConfig, type LoadedConfig } from '../../infra/config/load-config.js';
import { configSchema, DEFAULT_COLLECTOR_ENDPOINT, type FederationConfigInput } from '../../core/schema/config.js';
import { parseGiven } from '../../core/schema/problems.js';
import { emptyRegistry } from '../../core/schema/registry.js';
import { seedSkills } from '../../engine/skills/seed-skills.js';
import { openFederation, type Federation } from '../../engine/context.js';

export interface InitRequest {
  federationName?: string;
  description?: string;
  /** `telemetry.enabled` for a new config (chooseTelemetry); an existing config is never changed. */
  telemetry?: boolean;
  /** What the caller calls each field (`federationName` → `--name`), for the refusal of a bad one. */
  names?: Readonly<Record<string, string>>;
}

export interface InitResult {
  root: string;
  /** The registry is kept by a backend shared across machines (JetStream): create or join it with initSharedRegistry. */
  sharedRegistry: boolean;
  /** Paths this call created; empty when the federation already existed (re-running is a no-op). */
  created: string[];
  /** The topmost folder of each folder path this call made (everything under one is the call's). */
  madeFolders: string[];
  config: LoadedConfig;
  warnings: string[];
}

/**
 * Everything under `.fed/` is runtime state except the skills, which teams share and people curate.
 * Workspaces (`teams/`, `worktrees/`) live here too, so onboarding never dirties `git status`.
 */
const FED_GITIGNORE = `# Written by fed init. Runtime state of the federation is not committed; skills are.
*
!.gitignore
!skills/
!skills/**
`;

/**
 * `fed init`: create what the backend keeps under the root (its adapter's `initFolders` and `initFiles`;
 * files: meta's signal boxes and an empty registry, `lockVersion` 0), `federate.config.json` (validated
 * first, never overwritten), `.fed/skills/` seeded with the bundled skills (existing files kept) and the
 * git-ignore for runtime folders.
 */
export function initFederation(
  root: string,
  request: InitRequest = {},
  env: NodeJS.ProcessEnv = process.env,
): InitResult {
  const paths = federationPaths(root);
  const created: string[] = [];
  const madeFolders: string[] = [];
  const warnings: string[] = [];

  const requested: FederationConfigInput = {};
  if (request.federationName !== undefined) requested.federationName = request.federationName;
  if (request.description !== undefined) requested.description = request.description;
  if (request.telemetry !== undefined) requested.telemetry = { enabled: request.telemetry };
  // Validate before anything is written, so a bad --name leaves nothing half-initialised; an existing
  // config that is broken is reported now, before anything is created.
  parseGiven(configSchema, requested, request.names ?? {});
  const requestedConfig = validateConfig(requested, paths.config).config;
  const planned = existsSync(paths.config)
    ? loadFederationConfig(root, env).config
    : applyEnvOverrides(requestedConfig, env, BACKEND_ENV_OVERRIDES);
  // The backend may refuse the config or what it finds (JetStream: the federation's name must be able to
  // name its streams; files: a registry file there must be valid). One shared across machines keeps the
  // registry itself (initSharedRegistry).
  const adapter = adapterFor(planned);
  adapter.checkInit?.(planned, root);
  refuseUnwritable(root, existsSync(paths.config));

  for (const dir of [...(adapter.initFolders?.(root) ?? []), paths.skills]) {
    if (!existsSync(dir)) {
      const top = mkdirSync(dir, { recursive: true });
      if (top !== undefined) madeFolders.push(top);
      created.push(dir);
    }
  }
  if (createFileExclusive(paths.config, toJsonText(requested))) created.push(paths.config);
  else if (Object.keys(requested).length) warnings.push(`${paths.config} already exists and was left unchanged`);
  if (createFileExclusive(paths.gitignore, FED_GITIGNORE)) created.push(paths.gitignore);
  created.push(...(adapter.initFiles?.(root) ?? []));
  created.push(...seedSkills(paths.skills));

  const config = loadFederationConfig(root, env);
  return {
    root,
    sharedRegistry: adapter.sharesTeamsAcrossMachines,
    created,
    madeFolders,
    config,
    warnings: [...warnings, ...config.warnings],
  };
}

/**
 * `fed init` writes into the root (its config, `.fed/`) even when re-run on a federation made already: a
 * root it cannot write to — a read-only mount, a folder of another user — is refused before anything is
 * tried, naming the folder and why (exit 2), rather than failing on the first temp file it would create.
 */
function refuseUnwritable(root: string, initialised: boolean): void {
  let folder = root;
  while (!existsSync(folder) && dirname(folder) !== folder) folder = dirname(folder);
  try {
    accessSync(folder, constants.W_OK);
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code;
    if (errno !== 'EROFS' && errno !== 'EACCES' && errno !== 'EPERM') throw error;
    const why = errno === 'EROFS' ? 'is on a read-only filesystem' : 'is not writable by this user';
    const state = initialised ? 'the federation there is initialised already (commands that only read it work); ' : '';
    throw new FileSystemError(
      errno,
      folder,
      `fed init cannot write to ${folder}: it ${why} [${errno}]; ${state}to initialise it, remount it read-write (or give this user write access), or run fed init in a folder fed can write to`,
      true,
      error,
    );
  }
}

export interface TelemetryChoice extends CollectorProbe {
  enabled: boolean;
}

/**
 * What `fed init` records as `telemetry.enabled` in the config it creates: on when a collector answers at
 * the endpoint telemetry would use (`OTEL_EXPORTER_OTLP_ENDPOINT`, else the default), off otherwise — so
 * a federation made where no collector runs never warns that metrics cannot be sent, until its user turns
 * telemetry on. Undefined, nothing recorded, when the config exists already or `FED_TELEMETRY_ENABLED`
 * decides.
 */
export async function chooseTelemetry(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TelemetryChoice | undefined> {
  if (existsSync(federationPaths(root).config) || env[ENV_TELEMETRY_ENABLED] !== undefined) return undefined;
  const probe = await probeCollector(env[ENV_OTLP_ENDPOINT] || DEFAULT_COLLECTOR_ENDPOINT);
  return { ...probe, enabled: probe.answers };
}

export interface SharedRegistryResult {
  /** True when the federation already existed there: this machine joined it, nothing was reset. */
  joined: boolean;
  teams: number;
  location: string;
  /** Warnings of the backend (JetStream: what a power loss could cost with this server and replica count). */
  notes: string[];
}

/**
 * `fed init` with a backend shared across machines (JetStream): create the federation's registry there, or
 * — when a federation of that name already exists (another machine initialised it) — join it, leaving
 * everything as it is.
 */
/**
 * `fed init` whole: the federation's files (initFederation), then the registry a backend shares across
 * machines (initSharedRegistry). A shared registry that cannot be reached or made leaves none of the files
 * this call created — else a re-run found the federation made, kept the first --name and said "nothing to
 * do" — and its error is thrown as it came.
 */
export async function createFederation(
  root: string,
  request: InitRequest,
  env: NodeJS.ProcessEnv,
): Promise<{ result: InitResult; shared?: SharedRegistryResult }> {
  const result = initFederation(root, request, env);
  if (!result.sharedRegistry) return { result };
  try {
    return { result, shared: await initSharedRegistry(openFederation(root, { env, config: result.config })) };
  } catch (error) {
    removeCreated(result);
    throw error;
  }
}

/** What an init created, gone again: its files, and the folders it made (a folder there before stays, empty or not). */
function removeCreated({ created, madeFolders }: InitResult): void {
  for (const path of [...created].reverse()) rmSync(path, { force: true, recursive: true });
  for (const folder of madeFolders) rmSync(folder, { force: true, recursive: true });
}

export async function initSharedRegistry(fed: Federation): Promise<SharedRegistryResult> {
  const { backend } = fed;
  const joined = !(await backend.registry.create(emptyRegistry()));
  const registry = await backend.registry.read();
  return {
    joined,
    teams: registry.teams.length,
    location: backend.registry.location,
    notes: (await adapterFor(fed.config).initNotes?.(backend)) ?? [],
  };
}
