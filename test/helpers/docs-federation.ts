import { initFederation, onboardTeam, sendSignal, type RegistryEntry } from '../../src/index.js';
import { getTeam } from '../../src/core/find-team.js';
import { readRegistry } from '../../src/adapters/file/registry-file.js';
import { openFederation } from '../../src/engine/context.js';
import { tempDir } from './temp-dir.js';

/** A new file federation with one deliverable team, docs; `team()` reads its registry entry as it is now. */
export async function docsFederation(): Promise<{ root: string; team: () => RegistryEntry }> {
  const root = tempDir();
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'docs', archetypeId: 'deliverable' });
  return { root, team: () => getTeam(readRegistry(root), 'docs') };
}

/** A directive from meta to `to` (docs by default) with `subject`, not flushed to disk (the tests' pace). */
export const sendDirective = (root: string, subject: string, to = 'docs') =>
  sendSignal(openFederation(root), { to, type: 'directive', subject }, { durable: false });
