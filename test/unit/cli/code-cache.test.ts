import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cacheToWrite,
  codeCacheFiles,
  pruneCodeCaches,
  readCodeCache,
  STALE_CACHE_MS,
  writeCodeCache,
} from '../../../src/cli/code-cache.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('code cache location', () => {
  const stem = `abc-${process.version}-${process.arch}-event`;
  const files = (dir: string) => ({
    complete: join(dir, `${stem}.v8cache`),
    provisional: join(dir, `${stem}.provisional.v8cache`),
  });

  it('is $FED_CODE_CACHE, else $XDG_CACHE_HOME/fed, else a folder of this user in the temp directory', () => {
    expect(codeCacheFiles({ FED_CODE_CACHE: '/c', XDG_CACHE_HOME: '/x' }, 'abc', 'event')).toEqual(files('/c'));
    expect(codeCacheFiles({ XDG_CACHE_HOME: '/x' }, 'abc', 'event')).toEqual(files(join('/x', 'fed')));
    expect(codeCacheFiles({}, 'abc', 'event')).toEqual(files(join(tmpdir(), `fed-code-cache-${process.getuid!()}`)));
  });

  it('is none with FED_CODE_CACHE=off', () => {
    expect(codeCacheFiles({ FED_CODE_CACHE: 'off', XDG_CACHE_HOME: '/x' }, 'abc', 'event')).toBeUndefined();
  });
});

describe('which cache a run leaves', () => {
  it('a run to its end: a complete one in place of any provisional one, unless it ran from a complete one V8 accepted', () => {
    const complete = { kind: 'complete', removes: 'provisional' };
    expect(cacheToWrite(undefined, false, true)).toEqual(complete);
    expect(cacheToWrite('provisional', false, true)).toEqual(complete);
    expect(cacheToWrite('provisional', true, true)).toEqual(complete);
    expect(cacheToWrite('complete', true, true)).toEqual(complete);
    expect(cacheToWrite('complete', false, true)).toBeUndefined();
  });

  it('a run an error stopped: a provisional one, only when it ran from none it could use', () => {
    expect(cacheToWrite(undefined, false, false)).toEqual({ kind: 'provisional' });
    expect(cacheToWrite('provisional', true, false)).toEqual({ kind: 'provisional' });
    // A complete one V8 refused would be read first, and refused, again: it goes.
    expect(cacheToWrite('complete', true, false)).toEqual({ kind: 'provisional', removes: 'complete' });
    expect(cacheToWrite('provisional', false, false)).toBeUndefined();
    expect(cacheToWrite('complete', false, false)).toBeUndefined();
  });
});

describe('reading and writing the cache', () => {
  it('reads back what was written, into a folder only this user can enter', async () => {
    const file = join(tempDir(), 'new', 'x.v8cache');
    expect(await writeCodeCache(file, Buffer.from('compiled'))).toBe(true);
    expect(readCodeCache(file)?.toString()).toBe('compiled');
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
  });

  it('finds nothing in a missing file, a folder or a FIFO (never waiting for a writer)', () => {
    const dir = tempDir();
    expect(readCodeCache(join(dir, 'missing'))).toBeUndefined();
    mkdirSync(join(dir, 'folder'));
    expect(readCodeCache(join(dir, 'folder'))).toBeUndefined();
    expect(spawnSync('mkfifo', [join(dir, 'fifo')]).status).toBe(0);
    expect(readCodeCache(join(dir, 'fifo'))).toBeUndefined();
  });

  it('a complete cache written over a provisional one removes it', async () => {
    const dir = tempDir();
    const provisional = join(dir, 'x.provisional.v8cache');
    writeFileSync(provisional, 'early');
    await writeCodeCache(join(dir, 'x.v8cache'), Buffer.from('compiled'), provisional);
    expect(readCodeCache(join(dir, 'x.v8cache'))?.toString()).toBe('compiled');
    expect(readCodeCache(provisional)).toBeUndefined();
  });

  it('a cache that cannot be written is skipped without an error', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    await expect(writeCodeCache(join(dir, 'file', 'x.v8cache'), Buffer.from('compiled'))).resolves.toBe(false);
  });
});

describe('pruning what other builds left', () => {
  const build = 'abcdef0123456789';
  const other = '0123456789abcdef';
  const ours = `${build}-${process.version}-${process.arch}`;
  const otherNode = process.version === 'v20.20.2' ? 'v26.10.0' : 'v20.20.2';

  /** A cache folder holding `names` (a trailing slash: a folder), each last written `ageMs` ago. */
  function cacheFolder(names: Record<string, number>): string {
    const dir = tempDir();
    for (const [name, ageMs] of Object.entries(names)) {
      const path = join(dir, name);
      if (name.endsWith('/')) mkdirSync(path);
      else writeFileSync(path, 'compiled');
      const at = (Date.now() - ageMs) / 1000;
      utimesSync(path, at, at);
    }
    return dir;
  }

  it("removes another build's or Node's caches and killed writes' temp files once not written for a day; keeps this build's, recent ones and anything not named as ours", async () => {
    const old = STALE_CACHE_MS + 60_000;
    const dir = cacheFolder({
      [`${ours}-event.v8cache`]: old,
      [`${ours}-monitor.provisional.v8cache`]: old,
      [`${other}-${process.version}-${process.arch}-event.v8cache`]: old,
      [`${other}-${process.version}-${process.arch}-launch.markdown.provisional.v8cache`]: old,
      [`${build}-${otherNode}-${process.arch}-event.v8cache`]: old,
      [`${build}-v24.0.0-rc.1-${process.arch}-event.v8cache`]: old,
      [`.${other}-${process.version}-${process.arch}-event.v8cache.4242.0123456789ab.tmp`]: old,
      [`${other}-${process.version}-${process.arch}-team.v8cache`]: 60_000,
      [`.${build}-${process.version}-${process.arch}-team.v8cache.4242.0123456789ab.tmp`]: 1_000,
      'notes.v8cache': old,
      'README.md': old,
      [`${other}-${process.version}-${process.arch}-signal.v8cache/`]: old,
    });
    symlinkSync('/nonexistent', join(dir, `${other}-${process.version}-${process.arch}-help.v8cache`));
    await pruneCodeCaches({ FED_CODE_CACHE: dir }, build);
    expect(readdirSync(dir).sort()).toEqual(
      [
        `${ours}-event.v8cache`,
        `${ours}-monitor.provisional.v8cache`,
        `${other}-${process.version}-${process.arch}-team.v8cache`,
        `.${build}-${process.version}-${process.arch}-team.v8cache.4242.0123456789ab.tmp`,
        'notes.v8cache',
        'README.md',
        `${other}-${process.version}-${process.arch}-signal.v8cache`,
        `${other}-${process.version}-${process.arch}-help.v8cache`,
      ].sort(),
    );
  });

  it('does nothing, without an error, with the cache off or its folder missing', async () => {
    const dir = cacheFolder({ [`${other}-${process.version}-${process.arch}-event.v8cache`]: 2 * STALE_CACHE_MS });
    await pruneCodeCaches({ FED_CODE_CACHE: 'off' }, build);
    expect(readdirSync(dir)).toHaveLength(1);
    const missing = join(dir, 'missing');
    await expect(pruneCodeCaches({ FED_CODE_CACHE: missing }, build)).resolves.toBeUndefined();
    expect(existsSync(missing)).toBe(false);
  });
});
