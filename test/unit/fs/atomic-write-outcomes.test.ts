import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createFileExclusive,
  isTempFileName,
  linkFileNoClobber,
  publishFileNoClobber,
  suffixedName,
  tempPathFor,
  unlinkQuietly,
  writeFileAtomic,
  writeTempFiles,
} from '../../../src/infra/fs/atomic-write.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { openDescriptorsUnder } from './open-descriptors.js';

const listed = (dir: string) => readdirSync(dir).sort();

describe('temp file names', () => {
  it('a temp path is a dot-file beside its target that isTempFileName recognises as fed’s', () => {
    const target = join('/fed', 'teams', 'registry.json');
    const tmp = tempPathFor(target);
    expect(dirname(tmp)).toBe('/fed/teams');
    expect(basename(tmp)).toMatch(new RegExp(`^\\.registry\\.json\\.${process.pid}\\.[0-9a-f]{12}\\.tmp$`));
    expect(isTempFileName(basename(tmp))).toBe(true);
  });

  it.each([
    ['.registry.json.4242.0123456789ab.tmp', true],
    ['.a.7.abcdef012345.tmp', true],
    ['.ab.1.abcdef012345.tmp', true],
    ['.notes.tmp', false],
    ['registry.json.4242.0123456789ab.tmp', false],
    ['x.registry.json.4242.0123456789ab.tmp', false],
    ['.registry.json.4242.0123456789ab.tmp.bak', false],
    ['.registry.json.pid.0123456789ab.tmp', false],
    ['.registry.json.4242.0123456789a.tmp', false],
    ['.registry.json.4242.0123456789abc.tmp', false],
    ['.registry.json.4242.ghijklmnopqr.tmp', false],
    ['.registry.json.4242.0123456789AB.tmp', false],
  ])('isTempFileName(%j) is %s: only a name tempPathFor makes is fed’s to remove', (name, isTemp) => {
    expect(isTempFileName(name)).toBe(isTemp);
  });
});

describe('the name tried on a collision', () => {
  it.each([
    ['signal.json', 2, 'signal-2.json'],
    ['signal.json', 10, 'signal-10.json'],
    ['archive.tar.gz', 3, 'archive-3.tar.gz'],
    ['README', 2, 'README-2'],
    ['.hidden', 2, '.hidden-2'],
    ['.env.json', 4, '.env-4.json'],
  ])('suffixedName(%j, %i) is %j: the suffix goes before the first extension', (name, attempt, expected) => {
    expect(suffixedName(name, attempt)).toBe(expected);
  });
});

describe('publishing without ever replacing a file', () => {
  it('each collision takes the next suffixed name, keeps every earlier file, and leaves no temp file', () => {
    const dir = tempDir();
    const names = ['one', 'two', 'three'].map((data) => publishFileNoClobber(dir, 'signal.json', data));
    expect(names).toEqual(['signal.json', 'signal-2.json', 'signal-3.json']);
    expect(listed(dir)).toEqual(['signal-2.json', 'signal-3.json', 'signal.json']);
    expect(names.map((name) => readFileSync(join(dir, name), 'utf8'))).toEqual(['one', 'two', 'three']);
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });

  it('tries the names the caller makes for collisions', () => {
    const dir = tempDir();
    const nameForAttempt = (name: string, attempt: number) => `${attempt}-${name}`;
    publishFileNoClobber(dir, 'a.json', 'x', { nameForAttempt });
    expect(publishFileNoClobber(dir, 'a.json', 'y', { nameForAttempt })).toBe('2-a.json');
  });

  it('lands on the last attempt it is allowed, and gives up after it naming the file and the folder', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a.json'), 'first');
    expect(publishFileNoClobber(dir, 'a.json', 'second', { maxAttempts: 2 })).toBe('a-2.json');
    expect(() => publishFileNoClobber(dir, 'a.json', 'third', { maxAttempts: 2 })).toThrow(
      new Error(`could not find a free file name for a.json in ${dir} after 2 attempts`),
    );
    expect(listed(dir)).toEqual(['a-2.json', 'a.json']);
  });

  it('gives an existing file a further name, keeping its first one', () => {
    const dir = tempDir();
    const source = join(dir, 'inbox.json');
    writeFileSync(source, 'kept');
    mkdirSync(join(dir, 'archive'));
    writeFileSync(join(dir, 'archive', 'inbox.json'), 'older');
    expect(linkFileNoClobber(source, join(dir, 'archive'), 'inbox.json', { durable: false })).toBe('inbox-2.json');
    expect(readFileSync(join(dir, 'archive', 'inbox-2.json'), 'utf8')).toBe('kept');
    expect(readFileSync(source, 'utf8')).toBe('kept');
  });

  it('a failure other than a taken name is thrown at once, not tried under other names', () => {
    const dir = tempDir();
    expect(() => linkFileNoClobber(join(dir, 'gone.json'), dir, 'a.json', { maxAttempts: 3 })).toThrow(
      expect.objectContaining({ code: 'ENOENT', syscall: 'link' }),
    );
  });
});

describe('creating a file only if nothing is there', () => {
  it('creates it once; a second create writes nothing and keeps the first content; no temp file is left', () => {
    const dir = tempDir();
    const target = join(dir, 'seed.json');
    expect(createFileExclusive(target, 'first')).toBe(true);
    expect(createFileExclusive(target, 'second')).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('first');
    expect(listed(dir)).toEqual(['seed.json']);
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });
});

describe('replacing a file atomically, with a check right before the replace', () => {
  it('runs the check once the new content is complete on disk, beside the target', () => {
    const dir = tempDir();
    const target = join(dir, 'state.json');
    writeFileAtomic(target, 'old');
    let seenDuringCheck: string[] = [];
    writeFileAtomic(target, 'new', {
      beforeReplace: () => {
        seenDuringCheck = readdirSync(dir)
          .filter(isTempFileName)
          .map((name) => readFileSync(join(dir, name), 'utf8'));
      },
    });
    expect(seenDuringCheck).toEqual(['new']);
    expect(readFileSync(target, 'utf8')).toBe('new');
  });

  it('a check that throws cancels the write: the old file stays, no temp file is left, the error is thrown', () => {
    const dir = tempDir();
    const target = join(dir, 'state.json');
    writeFileAtomic(target, 'old');
    const lost = new Error('lock lost');
    expect(() =>
      writeFileAtomic(target, 'new', {
        beforeReplace: () => {
          throw lost;
        },
      }),
    ).toThrow(lost);
    expect(readFileSync(target, 'utf8')).toBe('old');
    expect(listed(dir)).toEqual(['state.json']);
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });

  it('writes bytes as given and text as UTF-8', () => {
    const dir = tempDir();
    writeFileAtomic(join(dir, 'bytes'), Uint8Array.from([0xff, 0x00, 0x41]));
    writeFileAtomic(join(dir, 'text'), 'é✓');
    expect([...readFileSync(join(dir, 'bytes'))]).toEqual([0xff, 0x00, 0x41]);
    expect(readFileSync(join(dir, 'text'))).toEqual(Buffer.from('é✓', 'utf8'));
  });
});

describe('temp files written without fsync (tests, caches)', () => {
  it('are written one by one, each outcome its own, with no descriptor left open', async () => {
    const dir = tempDir();
    const results = await Promise.allSettled(
      writeTempFiles([join(dir, 'a.json'), join(dir, 'gone', 'b.json')], 'x', { durable: false }),
    );
    expect(results[0]).toEqual({ status: 'fulfilled', value: expect.stringContaining(`${dir}/.a.json.`) });
    expect(readFileSync((results[0] as PromiseFulfilledResult<string>).value, 'utf8')).toBe('x');
    expect(results[1]).toEqual({ status: 'rejected', reason: expect.objectContaining({ code: 'ENOENT' }) });
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });

  it('leave no descriptor open when written durably either', async () => {
    const dir = tempDir();
    const [result] = await Promise.allSettled(writeTempFiles([join(dir, 'a.json')], 'x'));
    expect(result?.status).toBe('fulfilled');
    expect(openDescriptorsUnder(dir)).toEqual([]);
  });
});

describe('removing a file that may be gone', () => {
  it('removes a file, ignores one that is not there, and throws for anything else (a directory)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a'), 'x');
    unlinkQuietly(join(dir, 'a'));
    unlinkQuietly(join(dir, 'a'));
    expect(listed(dir)).toEqual([]);
    mkdirSync(join(dir, 'folder'));
    expect(() => unlinkQuietly(join(dir, 'folder'))).toThrow(expect.objectContaining({ code: 'EISDIR' }));
  });
});
