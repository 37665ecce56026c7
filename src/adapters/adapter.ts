import type { BackendConfig, FederationConfig } from '../core/schema/config.js';
import type { EnvOverride } from '../infra/config/env-overrides.js';
import type { BackendChecks } from '../ports/doctor-finding.js';
import type { FederationBackend } from '../ports/federation-backend.js';
import type { CheckedWorkspaces } from './checked-workspaces.js';

/** A backend's config: the branch of `backend` in federate.config.json whose `type` is `T`. */
export type BackendConfigOf<T extends BackendConfig['type']> = Extract<BackendConfig, { type: T }>;

export interface OpenBackendOptions<C extends BackendConfig = BackendConfig> {
  root: string;
  /** The federation's config, already loaded (the context loads it once per command). */
  config: FederationConfig;
  /** `config.backend`, or `{type: "files"}` when it is absent. */
  backend: C;
  env: NodeJS.ProcessEnv;
  /** The workspace checks of the Federation opening it: a team's workspace is checked once per context. */
  workspaces: CheckedWorkspaces;
}

/**
 * A storage backend as the rest of fed sees it: everything that differs from one backend to another, so
 * a new backend is its folder in src/adapters/, its entry in ADAPTERS (src/adapters/index.ts) and its config
 * schema (core/schema/backends/, one branch of the union in core/schema/config.ts) — no caller compares
 * `backend.type` with a name. Everything but `type`, `title`, `open` and `sharesTeamsAcrossMachines` is optional.
 */
export interface BackendAdapter<C extends BackendConfig = BackendConfig> {
  /** The `backend.type` that selects it. */
  readonly type: C['type'];
  /** Its name in messages: "no JetStream backend is configured". */
  readonly title: string;
  /** How to select it, for messages that need it (`fed migrate to-<type>`): the variable or config to set. */
  readonly selectHint?: string;
  /**
   * The registry is shared by every machine of the federation: a team may work in another machine's
   * checkout, `fed init` creates or joins the registry in the backend (no registry file under the root),
   * and a config naming this backend marks a federation root (there is no registry file to find).
   */
  readonly sharesTeamsAcrossMachines: boolean;
  /**
   * Reached over the network (a server): the built-in agent, which reads the backend itself, keeps the
   * machine's network in its sandbox to reach it.
   */
  readonly overTheNetwork?: boolean;
  /** The backend's operations on the federation at `root`. Never waits for the network (connect on first use). */
  open(options: OpenBackendOptions<C>): FederationBackend;
  /** Variables of the environment that override the config (they may select this backend). */
  readonly envOverride?: EnvOverride;
  /**
   * The variables of the environment the backend reads under `config` (server URLs, credentials): a
   * sandboxed agent does not get them — its fed commands run in its launcher's broker.
   */
  envNames?(config: FederationConfig): readonly string[];
  /** The backend's config as fed may print it (`fed config show`, messages): secrets hidden. */
  redact?(backend: C): C;
  /** The files its config names, by config key (checked by `fed config show`). */
  configFiles?(backend: C): Array<readonly [key: string, path: string | undefined]>;
  /**
   * `fed init`, before anything is written: refuse a config the backend cannot serve, or state it finds
   * broken under `root` (throws a FedError).
   */
  checkInit?(config: FederationConfig, root: string): void;
  /**
   * `fed init`, first: the folders the backend keeps under `root` (the file backend: meta's signal boxes),
   * made when missing.
   */
  initFolders?(root: string): string[];
  /** `fed init`: create what the backend keeps under `root` (the file backend: an empty registry); the paths created. */
  initFiles?(root: string): string[];
  /** Whether `dir` holds what marks a federation root of this backend (the file backend: its registry file). */
  marksRoot?(dir: string): boolean;
  /**
   * The paths the backend writes under a workspace (meta's, `root`: the root's files too), besides those
   * every backend has (core/layout.ts): `fed doctor` reports any that is a symbolic link.
   */
  runtimePaths?(workspace: string, root: boolean): string[];
  /** `fed init`, once the shared registry is created or joined: warnings worth printing (e.g. durability). */
  initNotes?(backend: FederationBackend): Promise<string[]>;
  /** `fed doctor`: the checks of the backend itself (its server, its streams), before the registry is read. */
  doctor?(backend: FederationBackend): Promise<BackendChecks>;
}
