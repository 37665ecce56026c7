import { existsSync, mkdirSync } from 'node:fs';
import { createFileExclusive } from '../fs/atomic-write.js';
import { toJsonText } from '../fs/json-text.js';
import { federationPaths, workspacePaths } from '../layout.js';
import { loadConfig, validateConfig, type LoadedConfig } from '../config/load-config.js';
import type { FederationConfigInput } from '../schema/config.js';
import { emptyRegistry, readRegistry } from '../registry/registry-file.js';
import { seedSkills } from '../skills/seed-skills.js';

export interface InitRequest {
  federationName?: string;
  description?: string;
}

export interface InitResult {
  root: string;
  /** Paths this call created; empty when the federation already existed (re-running is a no-op). */
  created: string[];
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
 * `fed init`: create `federate.config.json` (validated first, never overwritten), meta's signal boxes,
 * `.fed/skills/` seeded with the bundled skills (existing files kept), the git-ignore for runtime folders
 * and an empty registry (`lockVersion` 0).
 */
export function initFederation(root: string, request: InitRequest = {}, env: NodeJS.ProcessEnv = process.env): InitResult {
  const paths = federationPaths(root);
  const meta = workspacePaths(root);
  const created: string[] = [];
  const warnings: string[] = [];

  const requested: FederationConfigInput = {};
  if (request.federationName !== undefined) requested.federationName = request.federationName;
  if (request.description !== undefined) requested.description = request.description;
  // Validate before anything is written, so a bad --name leaves nothing half-initialised.
  validateConfig(requested, paths.config);
  // An existing config or registry that is broken is reported now, before anything is created.
  if (existsSync(paths.config)) loadConfig(root, env);
  if (existsSync(paths.registry)) readRegistry(root);

  for (const dir of [meta.inbox, meta.outbox, paths.skills]) {
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true });
      created.push(dir);
    }
  }
  if (createFileExclusive(paths.config, toJsonText(requested))) created.push(paths.config);
  else if (Object.keys(requested).length) warnings.push(`${paths.config} already exists and was left unchanged`);
  if (createFileExclusive(paths.gitignore, FED_GITIGNORE)) created.push(paths.gitignore);
  if (createFileExclusive(paths.registry, toJsonText(emptyRegistry()))) created.push(paths.registry);
  created.push(...seedSkills(paths.skills));

  const config = loadConfig(root, env);
  return { root, created, config, warnings: [...warnings, ...config.warnings] };
}
