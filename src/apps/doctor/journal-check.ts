import { FedError } from '../../core/errors.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';
import type { Federation } from '../../engine/context.js';
import { unreadableFix } from './unreadable-fix.js';

/**
 * The federation journal reads: lines that are not records (torn by a crash, written by another tool or a
 * newer fed) are skipped by every reader — `fed log` warns of them — and reported here, with the file.
 * Never repaired: fed only appends to the journal, it never rewrites it.
 */
export async function checkJournal(fed: Federation): Promise<PendingFinding[]> {
  const { journal } = fed.backend;
  try {
    const { skipped } = await journal.readCounted();
    if (skipped === 0) return [];
    return [
      {
        check: 'journal',
        path: journal.location,
        problem: `${skipped} line(s) of the federation journal ${journal.location} are not records (torn by a crash, or written by another tool or a newer fed); fed log and every other reader skip them`,
        fix: 'if a newer fed wrote them, upgrade this one (it reads them); if a crash tore them, nothing else is lost — they may stay (every reader skips them), or be deleted by hand from the file while no fed command runs (fed only ever appends to it)',
      },
    ];
  } catch (error) {
    if (!(error instanceof FedError)) throw error;
    return [
      {
        check: 'journal',
        path: journal.location,
        problem: error.message,
        fix: unreadableFix(error, 'move it aside; fed starts a new journal'),
      },
    ];
  }
}
