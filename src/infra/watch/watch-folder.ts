import { statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { DirectoryEvent, SharedDirectoryWatchers } from './shared-directory-watchers.js';

export interface FolderListener {
  /**
   * An entry of the folder changed (`name`), or anything in it may have (`null`: the folder appeared or
   * was replaced, or the system did not name the entry) — read it again.
   */
  onChange(name: string | null): void;
  /** A watcher could not be opened for another reason than a missing folder (e.g. the system's watch limit). */
  onError(error: Error): void;
}

/**
 * Watch `folder`'s entries, whether it exists yet or not. A missing folder is waited for through its
 * nearest existing ancestor (a shared watcher, told when the next folder down is created), never by a
 * timer. A folder moved away or removed is watched again at its path: inotify follows the old folder, and
 * fed replaces some folders by rename. Returns the stop.
 */
export function watchFolder(watchers: SharedDirectoryWatchers, folder: string, listener: FolderListener): () => void {
  const watch = new FolderWatch(watchers, folder, listener);
  return () => watch.close();
}

class FolderWatch {
  private release: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly watchers: SharedDirectoryWatchers,
    private readonly folder: string,
    private readonly listener: FolderListener,
  ) {
    this.attach(false);
  }

  close(): void {
    this.closed = true;
    this.release?.();
    this.release = undefined;
  }

  /** Watch the folder, or the nearest ancestor that exists; `appeared`: tell a change once the folder is watched. */
  private attach(appeared: boolean): void {
    this.release?.();
    this.release = undefined;
    if (this.closed) return;
    let directory = this.folder;
    let next: string | null = null;
    for (;;) {
      if (isDirectory(directory)) {
        const child = next;
        try {
          this.release = this.watchers.subscribe(directory, (event) => this.heard(event, child));
          break;
        } catch (error) {
          if (!isMissing(error)) return this.listener.onError(error as Error);
        }
      }
      const parent = dirname(directory);
      if (parent === directory) return;
      next = basename(directory);
      directory = parent;
    }
    if (next === null && appeared) this.listener.onChange(null);
  }

  /** `child`: the folder down the path that the watched ancestor waits for; null when the folder itself is watched. */
  private heard(event: DirectoryEvent, child: string | null): void {
    if (this.closed) return;
    if (event.kind === 'gone') return this.attach(true);
    if (child === null) this.listener.onChange(event.name);
    else if (event.name === null || event.name === child) this.attach(true);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    // ENOTDIR (a file on the path), EACCES: not a folder that can be watched now.
    return false;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
