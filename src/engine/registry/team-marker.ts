import { workspacePaths } from '../../core/layout.js';
import { toJsonText } from '../../core/json-text.js';
import type { TeamMarker } from '../../core/schema/team-marker.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { ensureDirectory } from '../../infra/fs/ensure-directory.js';

/**
 * Write `<location>/.fed/team.json`: the marker that tells commands run inside the team's workspace which
 * team and federation they act for (without it they act as meta). Written by onboarding, by `fed doctor
 * --fix` for a copied or moved federation, and by `fed migrate` for every workspace it registers.
 */
export function writeTeamMarker(root: string, location: string, domainId: string): void {
  const paths = workspacePaths(location);
  ensureDirectory(paths.fedDir);
  const marker: TeamMarker = { federationRoot: root, domainId };
  writeFileAtomic(paths.marker, toJsonText(marker));
}
