/**
 * The head of an HTTP/1 request a sandboxed agent sends its proxy, read strictly: the proxy forwards the
 * body and the answer raw (network-proxy.ts), so the head is all it reads, and it must read it exactly as
 * the server will. A line the server could split otherwise — a bare CR or LF, a folded header, a control
 * byte, a name that is no token — is refused rather than guessed at: the Host the server sees is the one
 * the policy checked, and a smuggled second one could reach another site behind the same address.
 */
export interface RequestHead {
  method: string;
  /** The request-target as sent: `host:port` for CONNECT, an absolute URL for a forwarded request. */
  target: string;
  /** `HTTP/1.0` or `HTTP/1.1`. */
  version: string;
  /** Field lines in order, names lower-cased. */
  headers: [name: string, value: string][];
}

export type HeadReading =
  | { kind: 'incomplete' }
  | { kind: 'malformed'; status: 400 | 431; reason: string }
  /** `rest`: what the client sent after the head (the start of a body, or a tunnel's first bytes). */
  | { kind: 'head'; head: RequestHead; rest: Buffer };

/** A head larger than this is no agent's (Node's own limit is 16 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;

const END = Buffer.from('\r\n\r\n');
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const REQUEST_LINE = new RegExp(`^(${TOKEN}) ([\\x21-\\x7e]+) (HTTP/1\\.[01])$`);
// A value: visible bytes, spaces and tabs, no control byte (so no CR, LF or NUL).
const FIELD_LINE = new RegExp(`^(${TOKEN}):[ \\t]*([\\t\\x20-\\x7e\\x80-\\xff]*?)[ \\t]*$`);

export function readRequestHead(bytes: Buffer): HeadReading {
  const end = bytes.indexOf(END);
  if (end === -1)
    return bytes.length > MAX_HEAD_BYTES
      ? { kind: 'malformed', status: 431, reason: 'request head too large' }
      : { kind: 'incomplete' };
  if (end > MAX_HEAD_BYTES) return { kind: 'malformed', status: 431, reason: 'request head too large' };
  const [requestLine = '', ...fieldLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const request = REQUEST_LINE.exec(requestLine);
  if (!request) return { kind: 'malformed', status: 400, reason: 'not an HTTP/1 request line' };
  const headers: [string, string][] = [];
  for (const line of fieldLines) {
    const field = FIELD_LINE.exec(line);
    if (!field) return { kind: 'malformed', status: 400, reason: 'a header line that cannot be read' };
    headers.push([field[1]!.toLowerCase(), field[2]!]);
  }
  return {
    kind: 'head',
    head: { method: request[1]!, target: request[2]!, version: request[3]!, headers },
    rest: bytes.subarray(end + END.length),
  };
}
