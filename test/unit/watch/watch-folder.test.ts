import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CoalesceByKey, SharedDirectoryWatchers } from 'fed/testing';
import { watchFolder } from '../../../src/infra/watch/watch-folder.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** Wait for `condition` (fs events arrive asynchronously); generous, never a fixed sleep. */
const until = (condition: () => boolean) =>
  vi.waitFor(() => expect(condition()).toBe(true), { timeout: 5000, interval: 10 });

describe('watchFolder', () => {
  const stops: Array<() => void> = [];
  afterEach(() => stops.splice(0).forEach((stop) => stop()));

  function watched(watchers: SharedDirectoryWatchers, folder: string) {
    const names: Array<string | null> = [];
    const errors: Error[] = [];
    stops.push(watchFolder(watchers, folder, { onChange: (name) => names.push(name), onError: (e) => errors.push(e) }));
    return { names, errors };
  }

  it("tells the names of the folder's entries that change", async () => {
    const dir = tempDir();
    const watchers = new SharedDirectoryWatchers();
    const seen = watched(watchers, dir);
    writeFileSync(join(dir, 'a.json'), '{}');
    await until(() => seen.names.includes('a.json'));
    expect(watchers.size).toBe(1);
  });

  it('waits for a missing folder through its nearest ancestor, then watches it', async () => {
    const dir = tempDir();
    const folder = join(dir, 'x', 'y', 'z');
    const watchers = new SharedDirectoryWatchers();
    const seen = watched(watchers, folder);
    const other = watched(watchers, join(dir, 'x', 'w'));
    // Both wait on the same ancestor: one watcher.
    expect(watchers.size).toBe(1);
    mkdirSync(folder, { recursive: true });
    // Appearing is a change (whatever was written before the watch reached it is read again).
    await until(() => seen.names.includes(null));
    writeFileSync(join(folder, 'b'), '1');
    await until(() => seen.names.includes('b'));
    expect(other.names).toEqual([]);
    expect(seen.errors).toEqual([]);
  });

  it('watches the path again when its folder is replaced by rename or removed', async () => {
    const dir = tempDir();
    const folder = join(dir, 'state');
    mkdirSync(folder);
    const watchers = new SharedDirectoryWatchers();
    const seen = watched(watchers, folder);
    renameSync(folder, join(dir, 'old-state'));
    mkdirSync(folder);
    await until(() => seen.names.includes(null));
    seen.names.length = 0;
    writeFileSync(join(dir, 'old-state', 'ignored'), '1');
    writeFileSync(join(folder, 'new'), '1');
    await until(() => seen.names.includes('new'));
    expect(seen.names).not.toContain('ignored');
    seen.names.length = 0;
    rmSync(folder, { recursive: true });
    mkdirSync(folder);
    // What was written before the new folder is watched is told as a change of anything (`null`).
    await until(() => seen.names.includes(null));
    writeFileSync(join(folder, 'again'), '1');
    await until(() => seen.names.includes('again'));
  });

  it('closes every watcher when stopped', () => {
    const dir = tempDir();
    const watchers = new SharedDirectoryWatchers();
    mkdirSync(join(dir, 'a'));
    watched(watchers, join(dir, 'a'));
    watched(watchers, join(dir, 'missing', 'deeper'));
    expect(watchers.size).toBe(2);
    stops.splice(0).forEach((stop) => stop());
    expect(watchers.size).toBe(0);
  });
});

describe('CoalesceByKey', () => {
  afterEach(() => vi.useRealTimers());

  it('tells a burst of one key once, with its last value, and keys apart', () => {
    vi.useFakeTimers();
    const told: string[] = [];
    const coalesce = new CoalesceByKey<string>(25, (value) => told.push(value));
    coalesce.push('a', 'a1');
    coalesce.push('a', 'a2');
    coalesce.push('b', 'b1');
    expect(told).toEqual([]);
    vi.advanceTimersByTime(25);
    expect(told).toEqual(['a2', 'b1']);
  });

  it('never pushes the timer back: a key that keeps changing is told every window', () => {
    vi.useFakeTimers();
    const told: number[] = [];
    const coalesce = new CoalesceByKey<number>(25, (value) => told.push(value));
    for (let i = 0; i < 10; i++) {
      coalesce.push('k', i);
      vi.advanceTimersByTime(10);
    }
    vi.advanceTimersByTime(25);
    expect(told.length).toBeGreaterThanOrEqual(4);
    expect(told.at(-1)).toBe(9);
  });

  it('drops what waits on clear', () => {
    vi.useFakeTimers();
    const told: string[] = [];
    const coalesce = new CoalesceByKey<string>(25, (value) => told.push(value));
    coalesce.push('a', 'a');
    coalesce.clear();
    vi.advanceTimersByTime(100);
    expect(told).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
