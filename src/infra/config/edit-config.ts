import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { ConfigValidationError, UnreadableFileError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import { federationPaths } from '../../core/layout.js';
import type { FederationConfig } from '../../core/schema/config.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { withLock } from '../fs/lock.js';
import { parseConfigText, validateConfig } from './load-config.js';

/** Changes the file's own JSON: what a person wrote, without the defaults. Returning false: nothing to change (the file is not written). */
export type ConfigEdit = (raw: Record<string, unknown>) => void | boolean;
/** Checks of the validated result beyond the schema's (a cron expression read whole); throwing refuses the edit. */
export type ConfigCheck = (config: FederationConfig) => void;

/**
 * Change `federate.config.json` as a person would by hand, for the commands that edit it (`fed schedule
 * add|remove`, `fed team onboard --agent …`): under a lock (two edits at once both land), `edit` changes
 * the file's own JSON and the result must validate whole before it replaces the file in one step, so a
 * refused edit leaves the file as it was, and an edit that finds nothing to change leaves it unwritten.
 */
export async function editConfigFile(root: string, edit: ConfigEdit, check?: ConfigCheck): Promise<FederationConfig> {
  const file = federationPaths(root).config;
  return withLock(`${file}.lock`, () => {
    const target = editTarget(file);
    const { edited, config, changed } = editedConfig(file, target, edit, check);
    // Beside the target, so the rename that replaces it stays in its folder (one step) and a link stays a link.
    if (changed) writeFileAtomic(target, toJsonText(edited));
    return config;
  });
}

/**
 * Whether `edit` would be accepted now, writing nothing: for an operation that edits the config after a
 * step that may be refused (onboarding a team, then its entry), so a bad edit is refused before that step.
 */
export function checkConfigEdit(root: string, edit: ConfigEdit, check?: ConfigCheck): FederationConfig {
  const file = federationPaths(root).config;
  return editedConfig(file, editTarget(file), edit, check).config;
}

/**
 * The file an edit of the config at `file` writes: that file, or, when it is a symbolic link (a config kept
 * in a dotfiles repository and linked), the file the link leads to — replacing the link would detach the
 * federation from it. A link to nowhere is refused: the edit would have nothing to start from.
 */
function editTarget(file: string): string {
  if (!lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return file;
  try {
    return realpathSync.native(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new UnreadableFileError(
      file,
      `a symbolic link that leads nowhere (to ${readlinkSync(file)})`,
      'point the link at the config file (or remove the link: fed then writes a new federate.config.json), then retry',
    );
  }
}

/** The edit of the config `target` holds; `file` (the root's config, maybe a link to `target`) is what messages name. */
function editedConfig(
  file: string,
  target: string,
  edit: ConfigEdit,
  check: ConfigCheck | undefined,
): { edited: Record<string, unknown>; config: FederationConfig; changed: boolean } {
  const text = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
  const raw = parseConfigText(text, file);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigValidationError(file, [{ path: '(root)', message: 'expected a JSON object' }]);
  const edited = structuredClone(raw) as Record<string, unknown>;
  const changed = edit(edited) !== false;
  const { config } = validateConfig(edited, file);
  check?.(config);
  return { edited, config, changed };
}
