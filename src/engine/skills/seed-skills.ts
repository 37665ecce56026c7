import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileExclusive } from '../../infra/fs/atomic-write.js';
import { packageRoot } from '../../infra/package-info.js';

/** The skills fed ships (docs/design/spec.md §2.6), in the package's top-level `skills/` folder. */
export function bundledSkillsDir(): string {
  return join(packageRoot(), 'skills');
}

/**
 * Copy the bundled skills into a federation's `.fed/skills/` (which must exist). Each file is created
 * only if absent — people curate their skills, so an existing file, edited or not, is never overwritten
 * and seeding again is a no-op. Returns the paths it created.
 */
export function seedSkills(skillsDir: string, source = bundledSkillsDir()): string[] {
  const created: string[] = [];
  for (const name of readdirSync(source)
    .filter((n) => n.endsWith('.md'))
    .sort()) {
    const target = join(skillsDir, name);
    if (createFileExclusive(target, readFileSync(join(source, name)))) created.push(target);
  }
  return created;
}
