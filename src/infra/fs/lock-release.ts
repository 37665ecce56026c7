import { basename, dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SharedDirectoryWatchers } from '../watch/shared-directory-watchers.js';

/**
 * What a lock's waiter waits for between two attempts: the lock file's removal, heard from its folder's
 * watcher, so the next holder takes the lock as soon as it is free — where a pause of its own left it
 * free for as long as the pause lasted (with four writers taking turns, most of each turn). The pause
 * still ends a wait that hears nothing: a holder that died releases nothing, a folder on a network
 * filesystem may tell nothing, and a watcher that cannot be opened (the system's limit) is done without.
 */
export class LockRelease {
  private heard = false;
  private wake: (() => void) | undefined;
  private stop: () => void = () => undefined;

  private constructor() {}

  /** Listens from now on, so a release between the caller's last attempt and `next` is not missed; undefined when the folder cannot be watched. */
  static listen(lockPath: string): LockRelease | undefined {
    const release = new LockRelease();
    const name = basename(lockPath);
    try {
      release.stop = new SharedDirectoryWatchers().subscribe(dirname(lockPath), (event) => {
        if (event.kind === 'entry' && event.name !== null && event.name !== name) return;
        release.heard = true;
        release.wake?.();
      });
    } catch {
      return undefined;
    }
    return release;
  }

  /** Resolves when the lock file changed since the last call (its removal among them), or after `pauseMs`. */
  async next(pauseMs: number): Promise<void> {
    if (!this.heard) {
      const abort = new AbortController();
      await Promise.race([
        new Promise<void>((resolve) => (this.wake = resolve)),
        sleep(pauseMs, undefined, { signal: abort.signal }).catch(() => undefined),
      ]);
      abort.abort();
      this.wake = undefined;
    }
    this.heard = false;
  }

  close(): void {
    this.stop();
  }
}
