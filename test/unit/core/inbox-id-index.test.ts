import { describe, expect, it } from 'vitest';
import {
  encodeInboxIdPack,
  INBOX_ID_PACK_HEADER_BYTES,
  INBOX_ID_SHARDS,
  readInboxIdPackHeader,
} from '../../../src/core/schema/inbox-id-index.js';

const GENERATION = '0123456789abcdef';
/** Shard i's text: `["id-i","name-i"]` for every third shard, empty otherwise (the last one too). */
const texts = Array.from({ length: INBOX_ID_SHARDS }, (_, i) =>
  i % 3 === 0 && i !== INBOX_ID_SHARDS - 1 ? JSON.stringify([`id-${i}`, `name-${i}`]) : '',
);

describe('the inbox id pack', () => {
  it("reads back each shard's text and the generation it was written with", () => {
    const pack = encodeInboxIdPack(GENERATION, texts);
    const header = readInboxIdPackHeader(pack, pack.length)!;
    expect(header.generation).toBe(GENERATION);
    const read = texts.map((_, shard) => {
      const { start, length } = header.range(shard)!;
      return pack.toString('utf8', start, start + length);
    });
    expect(read).toEqual(texts);
    expect(header.range(INBOX_ID_SHARDS - 1)?.length).toBe(0);
    // Its header alone is enough to read, given the pack's size.
    expect(readInboxIdPackHeader(pack.subarray(0, INBOX_ID_PACK_HEADER_BYTES), pack.length)?.generation).toBe(
      GENERATION,
    );
  });

  it('refuses a header cut short or of another magic, and a shard outside the file', () => {
    const pack = encodeInboxIdPack(GENERATION, texts);
    expect(readInboxIdPackHeader(pack.subarray(0, INBOX_ID_PACK_HEADER_BYTES - 1), pack.length)).toBeUndefined();
    expect(readInboxIdPackHeader(pack, pack.length - 1)?.sound()).toBe(false);
    const otherMagic = Buffer.from(pack);
    otherMagic.write('fedids0\n', 0, 'latin1');
    expect(readInboxIdPackHeader(otherMagic, pack.length)).toBeUndefined();
    // Shard 500's range pointing into the header, or past the end: that shard has none, and the pack is
    // not sound (an update, which copies every shard, does not use it); the other shards are still read.
    for (const [at, value] of [
      [16 + 500 * 8, 0],
      [16 + 500 * 8 + 4, pack.length],
    ] as const) {
      const planted = Buffer.from(pack);
      planted.writeUInt32LE(value, at);
      const header = readInboxIdPackHeader(planted, planted.length)!;
      expect([header.range(500), header.sound(), header.range(501)]).toEqual([
        undefined,
        false,
        readInboxIdPackHeader(pack, pack.length)!.range(501),
      ]);
    }
    expect(readInboxIdPackHeader(pack, pack.length)!.sound()).toBe(true);
  });

  it('is written only with a generation of 16 hex digits and one text per shard', () => {
    expect(() => encodeInboxIdPack('not-hex', texts)).toThrow();
    expect(() => encodeInboxIdPack(GENERATION, texts.slice(1))).toThrow(RangeError);
  });
});
