import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { initFederation, onboardTeam, openFederation, type RegistryEntry, sendSignal } from 'fed';
import { getTeam, readRegistry, workspacePaths } from 'fed/testing';
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

/**
 * Make meta's inbox of the federation at `root` unwritable — a file where the folder should be (ENOTDIR,
 * like a read-only disk) — so reports to meta are owed; the function returned puts the folder back.
 */
export function blockMetaInbox(root: string): () => void {
  const { inbox } = workspacePaths(root);
  renameSync(inbox, `${inbox}.away`);
  writeFileSync(inbox, 'not a folder');
  return () => {
    rmSync(inbox);
    renameSync(`${inbox}.away`, inbox);
  };
}
