import { closeSync, openSync } from 'node:fs';
import type { NetConnectOpts } from 'node:net';
import { basename, dirname } from 'node:path';

/**
 * The wire format between a sandboxed agent's `fed` (src/cli/broker-client.ts) and the broker of its
 * launcher (src/apps/launch/supervise/agent-broker.ts), over a Unix socket: frames of one type byte, a 4-byte
 * big-endian length and the payload. The client sends the request (REQUEST, JSON), then its standard
 * input (STDIN… STDIN_END); the broker answers with the command's STDOUT and STDERR as they come, then
 * EXIT (JSON `{code}`). The built-in agent reports a lifecycle event with one EVENT frame instead (JSON
 * `{token, type, data}`: what `fed event <type> --data <data>` would say), which the launcher applies
 * itself, with no `fed` process on either side; the answer is the same. Kept free of fed's other modules:
 * the `fed` bin loads it before anything else.
 */
export const FRAME = {
  REQUEST: 0x48,
  STDIN: 0x49,
  STDIN_END: 0x45,
  STDOUT: 0x4f,
  STDERR: 0x52,
  EXIT: 0x58,
  EVENT: 0x56,
} as const;

/** What the client asks: its token, fed's arguments, its working directory, and whether stdin follows. */
export interface BrokerRequest {
  token: string;
  argv: string[];
  cwd: string;
  stdin: boolean;
}

/** A lifecycle event of the agent's own team, as `fed event` takes it: its type, and its fields without `type`. */
export interface BrokerEventRequest {
  token: string;
  type: string;
  data: Record<string, unknown>;
}

/** A frame larger than this is a broken or hostile peer (output comes in pipe-sized chunks). */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** The environment variables that tell `fed` to run through a broker, and authenticate it there. */
export const BROKER_ENV = 'FED_BROKER';
export const BROKER_TOKEN_ENV = 'FED_BROKER_TOKEN';

export function encodeFrame(type: number, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const head = Buffer.alloc(5);
  head.writeUInt8(type, 0);
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

/** Splits a byte stream into frames; a frame over MAX_FRAME_BYTES throws. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): { type: number; payload: Buffer }[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const frames: { type: number; payload: Buffer }[] = [];
    while (this.pending.length >= 5) {
      const length = this.pending.readUInt32BE(1);
      if (length > MAX_FRAME_BYTES)
        throw new Error(`a frame of ${length} bytes is over the ${MAX_FRAME_BYTES}-byte limit`);
      if (this.pending.length < 5 + length) break;
      frames.push({ type: this.pending.readUInt8(0), payload: this.pending.subarray(5, 5 + length) });
      this.pending = this.pending.subarray(5 + length);
    }
    return frames;
  }
}

/** The longest path a Unix socket address holds (sun_path is 108 bytes, NUL included). */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * The address to bind or connect `socketPath` at: the path itself, or — when it is too long for a socket
 * address — the same file reached through an open descriptor of its folder (/proc/self/fd/<fd>/<name>).
 * The socket stays in the team's own workspace either way; a shorter path in the shared temp directory
 * could be replaced by another team's agent. `release` closes the descriptor (once) when bound or connected.
 */
export function socketAddress(socketPath: string): { address: string; release(): void } {
  if (Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES) return { address: socketPath, release: () => undefined };
  const folder = openSync(dirname(socketPath), 'r');
  let open = true;
  const release = () => {
    if (open) closeSync(folder);
    open = false;
  };
  return { address: `/proc/self/fd/${folder}/${basename(socketPath)}`, release };
}

/** How a sandbox with a network policy names its broker: on its own loopback (no Unix socket can be made there). */
const TCP_BROKER = /^tcp:\/\/127\.0\.0\.1:(\d+)$/;

/** Where a client connects for the broker `FED_BROKER` names: its Unix socket (socketAddress), or a loopback port. */
export function brokerAddress(value: string): { options: NetConnectOpts; release(): void } {
  const tcp = TCP_BROKER.exec(value);
  if (tcp) return { options: { host: '127.0.0.1', port: Number(tcp[1]) }, release: () => undefined };
  const { address, release } = socketAddress(value);
  return { options: { path: address }, release };
}
