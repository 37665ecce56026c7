import { FedError } from '../core/errors.js';
import { getTeam } from '../core/find-team.js';
import type { FederationConfig } from '../core/schema/config.js';
import type { Registry, RegistryEntry } from '../core/schema/registry.js';
import type { LoadedConfig } from '../infra/config/load-config.js';
import type { WriteOptions } from '../infra/fs/atomic-write.js';
import {
  CheckedWorkspaces,
  loadFederationConfig,
  openBackend,
  refuseCopiedFederation,
  sharesTeamsAcrossMachines,
} from '../adapters/index.js';
import type { FederationBackend } from '../ports/federation-backend.js';
import type { RegistryStore } from '../ports/registry-store.js';

/**
 * One federation, opened once at the edge (a CLI command, a library caller, a long-running server) and
 * handed to every operation below it. Nothing under src/apps opens a backend or reads the config itself,
 * so a command reads federate.config.json once and a server keeps one backend for its whole life.
 */
export interface Federation {
  /** The directory holding federate.config.json and .fed/. */
  readonly root: string;
  /** federate.config.json with defaults and environment overrides applied. */
  readonly config: FederationConfig;
  /** Where the config came from and what loading it warned about. */
  readonly configFile: Pick<LoadedConfig, 'file' | 'exists' | 'warnings'>;
  readonly env: NodeJS.ProcessEnv;
  readonly backend: FederationBackend;
  /** The federation's clock: what every operation stamps and compares times with, unless told otherwise. */
  readonly now: () => Date;
  /** The registry is shared with other machines (JetStream): a team may work in another checkout. */
  readonly sharesTeamsAcrossMachines: boolean;
  /**
   * The team's workspace once it is checked to be a real directory inside the root that no link leads
   * into. Checked once per team per context; writes into the workspace are checked again where they happen.
   */
  workspace(entry: RegistryEntry): string;
  /**
   * Right before fed writes into `folder` — one of `team`'s workspace, or of the root's `.fed/` (meta's)
   * without a team: refused when a symbolic link leads into it (WORKSPACE_SYMLINK, RUNTIME_FOLDER_SYMLINK),
   * created when missing. One realpath per folder and write.
   */
  folderForWrite(folder: string, team?: RegistryEntry, options?: WriteOptions): void;
  /**
   * A registered team (by id or domain) whose workspace passed the check above: from `registry`, else as
   * `checkRegistry` finds it (a watched copy in a long-running process).
   */
  team(name: string, registry?: Registry): Promise<RegistryEntry>;
  /**
   * Keep a watched copy of the registry for as long as this federation is open — for long-running
   * processes (fed mcp, fed actors run, fed ui, the launcher): `checkRegistry` then needs no read while the
   * store vouches for the copy. Nothing on a store without a watch (files); a one-shot command never calls it.
   * A context whose `checkRegistry` reads a second time starts it by itself: it is in a process that sends
   * (or checks) many times.
   */
  watchRegistry(): void;
  /**
   * `check` run on the registry as it is now — the watched copy when the store vouches for it, else a
   * read — with the registry it ran on. What the copy refuses (`check` throws a FedError: a team unknown,
   * archived, not the caller) is checked again on a read, so a team onboarded a moment ago is reachable.
   */
  checkRegistry<T>(check: (registry: Registry) => T): Promise<{ registry: Registry; checked: T }>;
}

export interface OpenFederationOptions {
  env?: NodeJS.ProcessEnv;
  /** The config when the caller has loaded it already (the CLI prints its warnings first). */
  config?: LoadedConfig;
  /** A backend to use instead of the configured one (tests, migration between backends). */
  backend?: FederationBackend;
  /** The clock (default: the system's). */
  now?: () => Date;
  /**
   * Read a registry whose teams lie in the federation this one was copied from, as it is (`fed doctor`,
   * which relocates them). Otherwise every registry read refuses it (refuseCopiedFederation).
   */
  readCopied?: boolean;
}

/** The registry reads through `checkRegistry` after which a context watches the registry by itself. */
const AUTO_WATCH_AFTER_READS = 2;

/** Open the federation at `root`: load its config once and open the backend it selects. */
export function openFederation(root: string, options: OpenFederationOptions = {}): Federation {
  const env = options.env ?? process.env;
  const loaded = options.config ?? loadFederationConfig(root, env);
  const { config } = loaded;
  const shared = sharesTeamsAcrossMachines(config);
  const workspaces = new CheckedWorkspaces(root, { sharedAcrossMachines: shared });
  const opened = options.backend ?? openBackend({ root, config, env, workspaces });
  const backend =
    options.readCopied || shared
      ? opened
      : withRegistry(
          opened,
          refusingCopies(opened.registry, (teams) => refuseCopiedFederation(root, teams)),
        );
  const workspace = (entry: RegistryEntry): string => workspaces.workspace(entry);
  let watch: { current(): Registry | undefined } | undefined;
  const watchRegistry = (): void => {
    watch ??= backend.registry.watch?.();
  };
  let reads = 0;
  const checkRegistry: Federation['checkRegistry'] = async (check) => {
    const copy = watch?.current();
    if (copy !== undefined) {
      try {
        return { registry: copy, checked: check(copy) };
      } catch (error) {
        if (!(error instanceof FedError)) throw error;
      }
    }
    // A one-shot command checks the registry once; a context checked again is a long-lived one (a library
    // caller sending many signals through one context), which keeps a watched copy from then on.
    if (++reads === AUTO_WATCH_AFTER_READS) watchRegistry();
    const registry = await backend.registry.read();
    return { registry, checked: check(registry) };
  };
  return {
    root,
    config,
    configFile: { file: loaded.file, exists: loaded.exists, warnings: loaded.warnings },
    env,
    backend,
    now: options.now ?? (() => new Date()),
    sharesTeamsAcrossMachines: shared,
    workspace,
    folderForWrite(folder, team, options) {
      if (team === undefined) workspaces.meta.folderForWrite(folder, options);
      else workspaces.folderForWrite(team, folder, options);
    },
    async team(name, registry) {
      const entry = registry
        ? getTeam(registry, name)
        : (await checkRegistry((current) => getTeam(current, name))).checked;
      workspace(entry);
      return entry;
    },
    watchRegistry,
    checkRegistry,
  };
}

/** `registry` whose reads are checked by `check` first (it throws to refuse one); everything else as it is. */
function refusingCopies(registry: RegistryStore, check: (teams: Registry['teams']) => void): RegistryStore {
  const read = async (): Promise<Registry> => {
    const current = await registry.read();
    check(current.teams);
    return current;
  };
  return new Proxy(registry, { get: (target, key) => (key === 'read' ? read : Reflect.get(target, key)) });
}

function withRegistry(backend: FederationBackend, registry: RegistryStore): FederationBackend {
  return new Proxy(backend, { get: (target, key) => (key === 'registry' ? registry : Reflect.get(target, key)) });
}
