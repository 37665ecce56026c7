import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codeCacheFile, readCodeCache, writeCodeCache } from '../../../src/cli/code-cache.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('code cache location', () => {
  const name = `abc-${process.version}-${process.arch}-event.v8cache`;

  it('is $FED_CODE_CACHE, else $XDG_CACHE_HOME/fed, else a folder of this user in the temp directory', () => {
    expect(codeCacheFile({ FED_CODE_CACHE: '/c', XDG_CACHE_HOME: '/x' }, 'abc', 'event')).toBe(join('/c', name));
    expect(codeCacheFile({ XDG_CACHE_HOME: '/x' }, 'abc', 'event')).toBe(join('/x', 'fed', name));
    expect(codeCacheFile({}, 'abc', 'event')).toBe(join(tmpdir(), `fed-code-cache-${process.getuid!()}`, name));
  });

  it('is none with FED_CODE_CACHE=off', () => {
    expect(codeCacheFile({ FED_CODE_CACHE: 'off', XDG_CACHE_HOME: '/x' }, 'abc', 'event')).toBeUndefined();
  });
});

describe('reading and writing the cache', () => {
  it('reads back what was written, into a folder only this user can enter', async () => {
    const file = join(tempDir(), 'new', 'x.v8cache');
    await writeCodeCache(file, Buffer.from('compiled'));
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

  it('a cache that cannot be written is skipped without an error', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    await expect(writeCodeCache(join(dir, 'file', 'x.v8cache'), Buffer.from('compiled'))).resolves.toBeUndefined();
  });
});
