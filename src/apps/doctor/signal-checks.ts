import { readdirSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { META } from '../../core/schema/common.js';
import type { SignalParty } from '../../core/resolve-party.js';
import { idIntruders, repeatedIds } from '../../engine/delivery/id-intruders.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';
import type { Federation } from '../../engine/context.js';
import { checkFolderPath, permissionFinding } from './file-checks.js';

/**
 * Each party's signal boxes. Inbox files that reuse the id of a signal fed delivered there (see
 * idIntruders): each a finding, whose repair is the quarantine the team actor would do, with the same
 * reason. Reads each inbox once; only ids that repeat are looked up. A box that cannot be listed for a file
 * on its path is a `folder` finding, one fed may not read a `permission` finding — the inbox, and the
 * outbox too (checkOutbox), whose party `fed monitor` calls unhealthy and whose sends fail.
 */
export async function checkSignalBoxes(fed: Federation, parties: readonly SignalParty[]): Promise<PendingFinding[]> {
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
      // Reported once: a file where the party's `.fed/signals` belongs keeps both boxes from being listed.
      continue;
    }
    findings.push(...checkOutbox(fed, party, team));
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

/**
 * Whether a party's outbox can be listed, where the backend keeps it in a folder (a JetStream stream is no
 * path): its names only — an outbox holds a copy of everything its party sent, and none needs reading here.
 * A folder not made yet is fine: fed makes it with the party's first send.
 */
function checkOutbox(fed: Federation, party: SignalParty, team: string | undefined): PendingFinding[] {
  const { location } = fed.backend.signals.outbox(party);
  if (!isAbsolute(location)) return [];
  try {
    readdirSync(location);
    return [];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    const denied = permissionFinding(error, team);
    return denied ? [denied] : checkFolderPath(location, error, team);
  }
}
