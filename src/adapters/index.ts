import { existsSync } from 'node:fs';
import type { FilesBackendConfig } from '../core/schema/backends/files.js';
import { federationPaths } from '../core/layout.js';
import { redactUrl } from '../core/redact-url.js';
import type { BackendConfig, FederationConfig } from '../core/schema/config.js';
import { loadConfig, readConfigJson, validateConfig, type LoadedConfig } from '../infra/config/load-config.js';
import type { EnvOverride } from '../infra/config/env-overrides.js';
import type { FederationBackend } from '../ports/federation-backend.js';
import type { BackendAdapter } from './adapter.js';
import { fileAdapter } from './file/adapter.js';
import { jetstreamAdapter } from './jetstream/adapter.js';
import { CheckedWorkspaces } from './checked-workspaces.js';

export type { BackendAdapter, OpenBackendOptions } from './adapter.js';
export { closeOpenBackends } from './network-backends.js';
export { CheckedWorkspaces } from './checked-workspaces.js';
export { CheckedRootFolders } from './checked-root-folders.js';
export {
  isWorkspaceRefusal,
  linked,
  locatedHere,
  relocatedWorkspace,
  refuseCopiedFederation,
  teamWorkspace,
  WORKSPACE_REFUSALS,
} from './team-workspace.js';

/**
 * The adapter registry: every storage backend, one entry each (CONTRIBUTING.md, "Add a storage backend").
 * Callers reach a backend's differences only through `adapterFor(config)` and the helpers below.
 */
export const ADAPTERS: readonly BackendAdapter[] = [fileAdapter, jetstreamAdapter];

/** The backend of a config that names none: files. */
export const DEFAULT_ADAPTER: BackendAdapter<FilesBackendConfig> = fileAdapter;

/** The config's `backend`, or the default one (files) when it names none. */
export function backendConfig(config: FederationConfig): BackendConfig {
  return config.backend ?? { type: DEFAULT_ADAPTER.type };
}

/** The adapter of the backend the config selects. */
export function adapterFor(config: FederationConfig): BackendAdapter {
  const { type } = backendConfig(config);
  const adapter = ADAPTERS.find((entry) => entry.type === type);
  // The config schema accepts only the types of core/schema/backends; each has its entry (adapters.test.ts).
  if (!adapter) throw new Error(`no adapter for backend type ${JSON.stringify(type)} in src/adapters/index.ts`);
  return adapter;
}

/**
 * Whether `dir` is a federation root: what a backend keeps there marks it (files: the registry), or its
 * config names a backend that keeps the registry itself, shared across machines (JetStream).
 */
export function isFederationRoot(dir: string, env: NodeJS.ProcessEnv): boolean {
  if (ADAPTERS.some((adapter) => adapter.marksRoot?.(dir))) return true;
  const { config } = federationPaths(dir);
  return existsSync(config) && sharesTeamsAcrossMachines(loadFederationConfig(dir, env).config);
}

/**
 * The paths any backend writes under a workspace (meta's, `root`: the root's files too), besides those
 * every backend has: whichever is configured, as `fed migrate` writes another's (`fed doctor` reports links).
 */
export function backendRuntimePaths(workspace: string, root: boolean): string[] {
  return ADAPTERS.flatMap((adapter) => adapter.runtimePaths?.(workspace, root) ?? []);
}

/** The config's backend is reached over the network (a server), not in files under the root. */
export function backendOverTheNetwork(config: FederationConfig): boolean {
  return adapterFor(config).overTheNetwork === true;
}

/** The environment overrides of every backend (a variable such as FED_NATS_URL may select one). */
export const BACKEND_ENV_OVERRIDES: readonly EnvOverride[] = ADAPTERS.flatMap(({ envOverride }) =>
  envOverride ? [envOverride] : [],
);

/** The variables of the environment the backends read under `config` (URLs, credentials). */
export function backendEnvNames(config: FederationConfig): string[] {
  return [...new Set(ADAPTERS.flatMap((adapter) => adapter.envNames?.(config) ?? []))];
}

/** federate.config.json with defaults and environment overrides applied, the backends' included. */
export function loadFederationConfig(root: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  return loadConfig(root, env, BACKEND_ENV_OVERRIDES);
}

/**
 * What can be trusted of the config of a federation whose federate.config.json does not load (`fed doctor`
 * checks it all the same): the defaults, on the default backend — only when that backend's marks are at
 * the root and neither the file, as far as it parses, nor the environment names another. Undefined
 * otherwise: the backend is not known, and nothing is read through a guessed one.
 */
export function configWithoutFile(root: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig | undefined {
  if (!DEFAULT_ADAPTER.marksRoot?.(root)) return undefined;
  const raw = readConfigJson(root);
  const named = isRecord(raw) ? raw.backend : undefined;
  if (named !== undefined && !(isRecord(named) && named.type === DEFAULT_ADAPTER.type)) return undefined;
  const file = federationPaths(root).config;
  const { config } = validateConfig({}, file);
  let selected = config;
  for (const override of BACKEND_ENV_OVERRIDES) {
    const result = override(selected, env);
    if ('problems' in result) return undefined;
    selected = result.config;
  }
  if (adapterFor(selected) !== DEFAULT_ADAPTER) return undefined;
  return { config, warnings: [], file, exists: existsSync(file) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export interface OpenConfiguredBackendOptions {
  root: string;
  /** The federation's config, already loaded (the context loads it once per command). */
  config: FederationConfig;
  env?: NodeJS.ProcessEnv;
  /** The context's workspace checks, shared with the file backend so each team is checked once per context. */
  workspaces?: CheckedWorkspaces;
}

/**
 * The backend a federation's configuration selects (file-signal-v1 by default). Opening never waits for
 * the network: a network backend connects on first use. Only the Federation context (src/engine/context.ts)
 * calls this.
 */
export function openBackend({
  root,
  config,
  env = process.env,
  workspaces,
}: OpenConfiguredBackendOptions): FederationBackend {
  const checks = workspaces ?? new CheckedWorkspaces(root, { sharedAcrossMachines: sharesTeamsAcrossMachines(config) });
  return adapterFor(config).open({ root, config, backend: backendConfig(config), env, workspaces: checks });
}

/**
 * Whether a federation shares its registry with other machines (JetStream): then a team whose workspace is
 * outside this root works in another machine's (or working directory's) checkout — not a misplaced workspace.
 */
export function sharesTeamsAcrossMachines(config: FederationConfig): boolean {
  return adapterFor(config).sharesTeamsAcrossMachines;
}

/** The configuration as fed prints it (`fed config show`): the backend's secrets and the collector's credentials hidden. */
export function redactedConfig(config: FederationConfig): FederationConfig {
  const { redact } = adapterFor(config);
  const { telemetry } = config;
  return {
    ...config,
    telemetry: {
      ...telemetry,
      collector: { ...telemetry.collector, endpoint: redactUrl(telemetry.collector.endpoint) },
    },
    ...(config.backend && redact && { backend: redact(config.backend) }),
  };
}

/** The files the backend's config names, by config key (`fed config show` checks they are there). */
export function backendConfigFiles(config: FederationConfig): Array<readonly [key: string, path: string | undefined]> {
  return adapterFor(config).configFiles?.(backendConfig(config)) ?? [];
}
