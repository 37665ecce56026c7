import { META } from '../../core/schema/common.js';
import type { SignalParty } from '../../core/resolve-party.js';
import { idIntruders, repeatedIds } from '../../engine/delivery/id-intruders.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';
import type { Federation } from '../../engine/context.js';
import { checkFolderPath, permissionFinding } from './file-checks.js';

/**
 * Inbox files that reuse the id of a signal fed delivered there (see idIntruders): each a finding, whose
 * repair is the quarantine the team actor would do, with the same reason. Reads each inbox once; only
 * ids that repeat are looked up. An inbox that cannot be listed for a file on its path is a `folder` finding.
 */
export async function checkSignalIds(fed: Federation, parties: readonly SignalParty[]): Promise<PendingFinding[]> {
  const findings: PendingFinding[] = [];
  for (const party of parties) {
    const team = party.id === META ? undefined : party.id;
    const inbox = fed.backend.signals.inbox(party);
    let listed;
    try {
      listed = await inbox.list();
    } catch (error) {
      // A file where the inbox (or a folder above it) belongs, or an inbox fed may not read, is this
      // party's finding, not the end of the checks.
      const denied = permissionFinding(error, team);
      findings.push(...(denied ? [denied] : checkFolderPath(inbox.location, error, team)));
      continue;
    }
    const repeated = repeatedIds(listed.signals);
    if (repeated.length === 0) continue;
    for (const intruder of await idIntruders(fed.backend.delivery, party.id, repeated)) {
      findings.push({
        check: 'signal-id',
        ...(team === undefined ? {} : { team }),
        path: intruder.path,
        problem: intruder.reason,
        fix: 'fed doctor --fix (or the team actor) moves it to the quarantine folder with that reason; the delivered signal stays',
        repair: async () => {
          await inbox.quarantine(intruder);
        },
      });
    }
  }
  return findings;
}
