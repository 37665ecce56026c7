import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initFederation } from '../../src/index.js';
import { tempDir } from './temp-dir.js';

/** A federation at the root of a git repository with one commit: where worktree teams can be onboarded. */
export function gitFederation(): { root: string; git: (...args: string[]) => string } {
  const root = tempDir();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe', encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  writeFileSync(join(root, 'README.md'), '# repo\n');
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  git('add', '-A');
  git('commit', '-qm', 'repo');
  return { root, git };
}
