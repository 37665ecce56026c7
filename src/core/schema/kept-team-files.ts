import { z } from 'zod';

/**
 * `<workspace>/.fed/state/kept-files.json`: which copy of each of the team's own files (deliverable,
 * learning log, run records) this workspace holds, as the backend's store of them numbers its copies
 * (src/ports/team-file-store.ts). A copy the store numbers higher was kept by another host after this
 * workspace last had the file — the team ran there since — so a team arriving back here takes it; the
 * digest spares putting a file that did not change. Revisions are the store's own, so no two hosts'
 * clocks are ever compared.
 */
export const KEPT_TEAM_FILES_FILE = 'kept-files.json';

export const keptTeamFileSchema = z.object({
  /** The store's revision of the copy this workspace put or took last. */
  revision: z.number().int().positive(),
  /** sha256 (hex) of that copy's content. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/, { error: 'expected a sha256 digest in hex' }),
});
export type KeptTeamFile = z.infer<typeof keptTeamFileSchema>;

export const keptTeamFilesSchema = z.object({
  files: z.record(z.string(), keptTeamFileSchema),
});
export type KeptTeamFiles = z.infer<typeof keptTeamFilesSchema>;
