import type { RequestHead } from './request-head.js';

/**
 * Where a forwarded request's body ends, found without decoding it: the proxy passes the body on raw and
 * stops at its end, so that bytes after it — a second request the client pipelined, perhaps to another
 * host — never reach the server unchecked. A length is counted; a chunked body's framing is followed (the
 * chunk data skipped, not copied), strictly, so the proxy and the server agree where it ends.
 */
export interface BodyEnd {
  /** How many bytes of `chunk` belong to the body (all, or up to its end); 'malformed' ends the request. */
  feed(chunk: Buffer): number | 'malformed';
  readonly done: boolean;
}

/** The body framing `head` declares, or why the proxy refuses it (the status to answer). */
export function bodyEnd(head: RequestHead): BodyEnd | { status: 400 | 501; reason: string } {
  const values = (name: string) => head.headers.filter(([field]) => field === name).map(([, value]) => value);
  const encodings = values('transfer-encoding');
  const lengths = values('content-length');
  if (encodings.length > 0) {
    // Both, or an encoding the server might read otherwise: the two ends could disagree (RFC 9112 §6.3).
    if (lengths.length > 0) return { status: 400, reason: 'both Transfer-Encoding and Content-Length' };
    if (encodings.length > 1 || encodings[0]!.toLowerCase() !== 'chunked')
      return { status: 501, reason: `Transfer-Encoding "${encodings.join(', ')}" (only chunked is forwarded)` };
    return new ChunkedEnd();
  }
  if (lengths.length > 1 || (lengths.length === 1 && !/^\d{1,15}$/.test(lengths[0]!)))
    return { status: 400, reason: 'a Content-Length that is not one number' };
  return new LengthEnd(Number(lengths[0] ?? 0));
}

class LengthEnd implements BodyEnd {
  constructor(private remaining: number) {}

  get done(): boolean {
    return this.remaining === 0;
  }

  feed(chunk: Buffer): number {
    const taken = Math.min(this.remaining, chunk.length);
    this.remaining -= taken;
    return taken;
  }
}

/** A chunk-size line or trailer line longer than this is no client's. */
const MAX_LINE = 4096;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})(;[\t\x20-\x7e]*)?$/;
const TRAILER_FIELD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\t\x20-\x7e\x80-\xff]*$/;

class ChunkedEnd implements BodyEnd {
  private state: 'size' | 'data' | 'data-end' | 'trailer' | 'done' = 'size';
  private line = '';
  /** In 'data': chunk bytes still to skip; in 'data-end': the CRLF bytes still expected. */
  private remaining = 0;

  get done(): boolean {
    return this.state === 'done';
  }

  feed(chunk: Buffer): number | 'malformed' {
    let at = 0;
    while (at < chunk.length && this.state !== 'done') {
      if (this.state === 'data') {
        const skipped = Math.min(this.remaining, chunk.length - at);
        at += skipped;
        this.remaining -= skipped;
        if (this.remaining === 0) [this.state, this.remaining] = ['data-end', 2];
        continue;
      }
      const byte = chunk[at++]!;
      if (this.state === 'data-end') {
        if (byte !== (this.remaining === 2 ? 0x0d : 0x0a)) return 'malformed';
        if (--this.remaining === 0) this.state = 'size';
        continue;
      }
      // 'size' or 'trailer': a line, ending in CRLF (never a bare LF).
      if (byte !== 0x0a) {
        if (this.line.length >= MAX_LINE) return 'malformed';
        this.line += String.fromCharCode(byte);
        continue;
      }
      if (!this.line.endsWith('\r')) return 'malformed';
      const line = this.line.slice(0, -1);
      this.line = '';
      if (line.includes('\r')) return 'malformed';
      if (this.state === 'trailer') {
        if (line === '') this.state = 'done';
        else if (!TRAILER_FIELD.test(line)) return 'malformed';
        continue;
      }
      const size = CHUNK_SIZE.exec(line);
      if (!size) return 'malformed';
      this.remaining = parseInt(size[1]!, 16);
      this.state = this.remaining === 0 ? 'trailer' : 'data';
    }
    return at;
  }
}
