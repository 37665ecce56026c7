import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ValidationProblem } from '../../core/errors.js';
import { federationPaths } from '../../core/layout.js';
import type { FederationConfig } from '../../core/schema/config.js';

/** The playbook skill teams read (docs/design/spec.md §2.3 `playbookSkill`): `.fed/skills/<playbookSkill>.md`. */
export function playbookSkillFile(root: string, config: FederationConfig): string {
  return join(federationPaths(root).skills, `${config.playbookSkill}.md`);
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Files the config names that are not there (or are not files): `deliverableSchema`, `importHook` and the
 * files the backend's config names (`backendFiles` by config key, from its adapter: creds, TLS), which fail
 * the commands that use them, and the playbook skill, without which launch prompts have no playbook. Relative paths are resolved against the federation root, as everywhere.
 */
export function missingConfigFiles(
  root: string,
  config: FederationConfig,
  backendFiles: ReadonlyArray<readonly [key: string, path: string | undefined]> = [],
): ValidationProblem[] {
  const problems: ValidationProblem[] = [];
  const named: Array<readonly [string, string | undefined]> = [
    ['deliverableSchema', config.deliverableSchema],
    ['importHook', config.importHook],
    ...backendFiles,
  ];
  for (const [key, value] of named) {
    if (value !== undefined && !isFile(resolve(root, value))) {
      problems.push({ path: key, message: `${resolve(root, value)} is not a file; fix the path or remove ${key}` });
    }
  }
  const playbook = playbookSkillFile(root, config);
  if (!isFile(playbook)) {
    problems.push({
      path: 'playbookSkill',
      message: `the playbook skill ${playbook} does not exist, so launch prompts have no playbook; create it (fed init seeds domain-playbook.md) or set playbookSkill to a skill in ${federationPaths(root).skills}`,
    });
  }
  return problems;
}
