import { Cron } from 'croner';
import { watch, type FSWatcher } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { readCron, type Schedule } from '../../core/schema/schedule.js';
import { git, GitCommandError } from '../../engine/registry/git.js';

/**
 * What makes a schedule fire, read with a well-kept cron library (croner, through the config's own
 * reading: readCron) or git itself: when the next cron tick after a moment is, and which commit a ref
 * names now.
 */

/** The cron expression of a schedule of a loaded config, which its schema read whole (readCron): it does not throw. */
export function cronOf(schedule: Schedule): Cron {
  return readCron(schedule.cron!, schedule.timezone);
}

/** The first tick of `cron` after `after`, or undefined when there is none (a date already past). */
export function nextTick(cron: Cron, after: Date): Date | undefined {
  return cron.nextRun(after) ?? undefined;
}

/** The commit `ref` names in the codebase at `root` now, or undefined when it names none (yet). */
export function commitOf(root: string, ref: string): string | undefined {
  try {
    return git(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  } catch (error) {
    if (error instanceof GitCommandError && !error.killedBy) return undefined;
    throw error;
  }
}

/**
 * Tell `onChange` (coalesced) when any ref of the repository at `root` may have moved: a watch of git's
 * refs and packed-refs — no process while nothing changes — backed by a slow poll for what a watch can
 * miss (a repository on a network filesystem).
 */
export function watchRefs(root: string, onChange: () => void, pollMs = 60_000): () => void {
  let gitDir: string;
  try {
    const common = git(root, ['rev-parse', '--git-common-dir']);
    gitDir = isAbsolute(common) ? common : join(root, common);
  } catch {
    // Not a git repository: every check finds no commit; the poll notices one made later.
    gitDir = '';
  }
  let timer: NodeJS.Timeout | undefined;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, 200);
  };
  const watchers: FSWatcher[] = [];
  for (const [path, recursive] of [
    [join(gitDir, 'refs'), true],
    [gitDir, false],
  ] as const) {
    if (!gitDir) break;
    try {
      watchers.push(watch(path, { recursive, persistent: false }, soon).on('error', () => undefined));
    } catch {
      // No such folder (yet): the poll covers it.
    }
  }
  const poll = setInterval(onChange, pollMs);
  poll.unref();
  return () => {
    clearTimeout(timer);
    clearInterval(poll);
    for (const watcher of watchers) watcher.close();
  };
}
