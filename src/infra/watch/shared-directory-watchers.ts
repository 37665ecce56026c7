import { watch, type FSWatcher } from 'node:fs';
import { basename } from 'node:path';

/**
 * What a directory's watcher tells: an entry `name` changed (`null` when the system does not say), or the
 * watcher is gone — the directory was moved or removed (inotify keeps following the old one, or nothing),
 * or the watcher broke — and the path must be watched again.
 */
export type DirectoryEvent = { kind: 'entry'; name: string | null } | { kind: 'gone' };

interface Shared {
  watcher: FSWatcher;
  listeners: Set<(event: DirectoryEvent) => void>;
}

/**
 * One `fs.watch` per directory however many listeners want it (a federation's teams often share folders
 * above their workspaces while those wait to be created). The watcher closes with its last listener.
 */
export class SharedDirectoryWatchers {
  private readonly open = new Map<string, Shared>();

  /** Listen to `directory`'s entries; throws what `fs.watch` throws (ENOENT when it does not exist). */
  subscribe(directory: string, listener: (event: DirectoryEvent) => void): () => void {
    let shared = this.open.get(directory);
    if (!shared) {
      const listeners = new Set<(event: DirectoryEvent) => void>();
      const own = basename(directory);
      const gone = () => {
        // Dropped before the listeners hear it, so those that watch the path again get a new watcher.
        this.drop(directory, watcher);
        for (const each of [...listeners]) each({ kind: 'gone' });
      };
      const watcher = watch(directory, (type, name) => {
        // Linux names the watched directory itself, as a rename, when it is moved or removed (an entry of
        // the same name renamed costs a needless new watcher, nothing more).
        if (type === 'rename' && name !== null && String(name) === own) return gone();
        for (const each of [...listeners]) each({ kind: 'entry', name: name === null ? null : String(name) });
      });
      watcher.on('error', gone);
      shared = { watcher, listeners };
      this.open.set(directory, shared);
    }
    shared.listeners.add(listener);
    const { watcher, listeners } = shared;
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.drop(directory, watcher);
    };
  }

  /** Directories watched now (tests and benchmarks read it). */
  get size(): number {
    return this.open.size;
  }

  private drop(directory: string, watcher: FSWatcher): void {
    if (this.open.get(directory)?.watcher === watcher) this.open.delete(directory);
    watcher.close();
  }
}
