/**
 * The server name (SNI) a TLS ClientHello asks for, read from the first bytes a client sends through a
 * CONNECT tunnel — so that a tunnel opened to an allowed host cannot carry a TLS session to another one
 * (domain fronting). Handshake records are joined until the ClientHello is whole (a large one spans
 * records); nothing is decrypted, nothing else is read.
 */
export type ClientHello =
  /** More bytes are needed. */
  | { kind: 'incomplete' }
  /** Not TLS at all (the first byte is no handshake record). */
  | { kind: 'not-tls' }
  | { kind: 'malformed' }
  /** `serverName` null: the ClientHello names no server (as for an IP address). */
  | { kind: 'hello'; serverName: string | null };

/** A ClientHello larger than this is no client's: the tunnel is cut. */
export const MAX_CLIENT_HELLO_BYTES = 64 * 1024;

const HANDSHAKE_RECORD = 0x16;
const CLIENT_HELLO = 0x01;
const SERVER_NAME_EXTENSION = 0x0000;
const HOST_NAME = 0x00;

export function readClientHello(bytes: Buffer): ClientHello {
  if (bytes.length === 0) return { kind: 'incomplete' };
  if (bytes[0] !== HANDSHAKE_RECORD) return { kind: 'not-tls' };
  // The handshake message, joined from the records' payloads.
  const parts: Buffer[] = [];
  let offset = 0;
  let joined = 0;
  while (offset + 5 <= bytes.length) {
    if (bytes[offset] !== HANDSHAKE_RECORD) return { kind: 'malformed' };
    const length = bytes.readUInt16BE(offset + 3);
    if (offset + 5 + length > bytes.length) break;
    parts.push(bytes.subarray(offset + 5, offset + 5 + length));
    joined += length;
    offset += 5 + length;
    if (joined >= 4) {
      const message = Buffer.concat(parts);
      if (message[0] !== CLIENT_HELLO) return { kind: 'malformed' };
      const total = 4 + message.readUIntBE(1, 3);
      if (total > MAX_CLIENT_HELLO_BYTES) return { kind: 'malformed' };
      if (message.length >= total) return serverNameOf(message.subarray(4, total));
    }
  }
  return bytes.length > MAX_CLIENT_HELLO_BYTES ? { kind: 'malformed' } : { kind: 'incomplete' };
}

/** The body of a ClientHello: version, random, session id, cipher suites, compressions, extensions. */
function serverNameOf(body: Buffer): ClientHello {
  let at = 2 + 32;
  const skip = (lengthBytes: 1 | 2) => {
    if (at + lengthBytes > body.length) return false;
    at += lengthBytes + body.readUIntBE(at, lengthBytes);
    return at <= body.length;
  };
  if (!skip(1) || !skip(2) || !skip(1)) return { kind: 'malformed' };
  if (at === body.length) return { kind: 'hello', serverName: null };
  if (at + 2 > body.length) return { kind: 'malformed' };
  const end = at + 2 + body.readUInt16BE(at);
  if (end > body.length) return { kind: 'malformed' };
  at += 2;
  while (at + 4 <= end) {
    const type = body.readUInt16BE(at);
    const length = body.readUInt16BE(at + 2);
    const data = body.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    if (at > end) return { kind: 'malformed' };
    if (type !== SERVER_NAME_EXTENSION) continue;
    // A list of names; the only type there is is host_name.
    if (data.length < 5 || data[2] !== HOST_NAME) return { kind: 'malformed' };
    const nameLength = data.readUInt16BE(3);
    if (5 + nameLength > data.length) return { kind: 'malformed' };
    return { kind: 'hello', serverName: data.subarray(5, 5 + nameLength).toString('latin1') };
  }
  return { kind: 'hello', serverName: null };
}
