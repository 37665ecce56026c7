import { fstatSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FrameReader, MAX_FRAME_BYTES, socketAddress } from '../../../src/infra/process/broker-protocol.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** `<dir>/<folder>/broker.sock` of exactly `length` characters, its folder named with `char` repeated. */
function socketPathOf(dir: string, length: number, char = 'x'): string {
  const folder = join(dir, char.repeat(length - `${dir}//broker.sock`.length));
  mkdirSync(folder);
  const path = join(folder, 'broker.sock');
  expect(path).toHaveLength(length);
  return path;
}

/** The descriptor an address of the /proc/self/fd form holds open. */
function descriptorOf(address: string): number {
  const match = /^\/proc\/self\/fd\/(\d+)\/broker\.sock$/.exec(address);
  expect(match).not.toBeNull();
  return Number(match![1]);
}

describe('the frames of the broker protocol', () => {
  it('takes a frame of exactly the limit: only a larger one is refused', () => {
    const head = Buffer.alloc(5);
    head.writeUInt32BE(MAX_FRAME_BYTES, 1);
    const reader = new FrameReader();
    expect(reader.push(head)).toEqual([]);
    const frames = reader.push(Buffer.alloc(MAX_FRAME_BYTES, 1));
    expect(frames.map(({ payload }) => payload.length)).toEqual([MAX_FRAME_BYTES]);
  });
});

describe('the address of a broker socket', () => {
  it('is the path itself up to 107 bytes, what a Unix socket address holds', () => {
    const path = socketPathOf(tempDir(), 107);
    const target = socketAddress(path);
    expect(target.address).toBe(path);
    target.release();
  });

  it('is the path through an open descriptor of its folder from 108 bytes, the folder released once', () => {
    const path = socketPathOf(tempDir(), 108);
    const target = socketAddress(path);
    const fd = descriptorOf(target.address);
    onTestFinished(() => target.release());
    // The descriptor is of the socket's own folder: the address names the same file.
    expect(fstatSync(fd).ino).toBe(statSync(dirname(path)).ino);
    target.release();
    expect(() => fstatSync(fd)).toThrow(expect.objectContaining({ code: 'EBADF' }));
    // A second release closes nothing: by then the number may be another file's.
    expect(() => target.release()).not.toThrow();
  });

  it('counts bytes, not characters: 107 characters that take more bytes in UTF-8 take the long form', () => {
    const path = socketPathOf(tempDir(), 107, 'é');
    const target = socketAddress(path);
    onTestFinished(() => target.release());
    descriptorOf(target.address);
  });
});
