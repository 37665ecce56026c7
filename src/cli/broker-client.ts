import { connect } from 'node:net';
import { resolve } from 'node:path';
import {
  BROKER_ENV,
  BROKER_TOKEN_ENV,
  encodeFrame,
  FRAME,
  FrameReader,
  brokerAddress,
  type BrokerRequest,
} from '../infra/process/broker-protocol.js';
import { readFileBounded, type BoundedRead } from '../infra/fs/read-file-bounded.js';

/** Standard input goes to the broker in frames of at most this size. */
const STDIN_FRAME_BYTES = 64 * 1024;

/**
 * `fed` inside a sandbox (`$FED_BROKER` set by `fed launch`): the agent cannot write the federation, so
 * its command runs in the launcher's broker, outside the sandbox (src/apps/launch/supervise/agent-broker.ts). This
 * forwards the arguments, the working directory and — when an argument reads it (`--body-file -`) —
 * standard input, prints what the command prints as it comes, and exits with its exit code. A
 * `--body-file <path>` is read here, as the agent sees it, and sent as standard input: the broker reads
 * no file for the agent (outside the sandbox it would see what the sandbox hides). `fed mcp` (the team's
 * MCP server, which the agent's CLI starts) streams both ways for as long as it runs: each stdin chunk is
 * forwarded as it arrives, the end of stdin last, and the server's answers come back as they are written.
 */
export function runThroughBroker(env: NodeJS.ProcessEnv, argv: readonly string[], cwd: string): void {
  const socketPath = env[BROKER_ENV]!;
  const fail = (message: string, code = 1) => {
    process.stderr.write(`fed: ${message}\n`);
    process.exitCode = code;
  };
  const forwarded = [...argv];
  let body: Buffer | undefined;
  try {
    body = readBodyFile(forwarded, cwd);
  } catch (error) {
    return fail((error as Error).message, 2);
  }
  const readsStdin =
    isMcpServer(forwarded) ||
    (body === undefined &&
      forwarded.some((arg, i) => (arg === '--body-file' && forwarded[i + 1] === '-') || arg === '--body-file=-'));
  const request: BrokerRequest = {
    token: env[BROKER_TOKEN_ENV] ?? '',
    argv: forwarded,
    cwd,
    stdin: readsStdin || body !== undefined,
  };
  let target: ReturnType<typeof brokerAddress>;
  try {
    target = brokerAddress(socketPath);
  } catch (error) {
    return fail(unreachable(socketPath, error as Error));
  }
  let socket = connect(target.options);
  let exited = false;
  const stopReading = () => {
    if (readsStdin) process.stdin.destroy();
  };
  const reader = new FrameReader();
  const onConnect = () => {
    target.release();
    socket.write(encodeFrame(FRAME.REQUEST, JSON.stringify(request)));
    for (let at = 0; body && at < body.length; at += STDIN_FRAME_BYTES)
      socket.write(encodeFrame(FRAME.STDIN, body.subarray(at, at + STDIN_FRAME_BYTES)));
    if (!readsStdin) return void socket.write(encodeFrame(FRAME.STDIN_END, ''));
    // As it comes, for as long as it comes: `fed mcp` answers each request before the next one arrives.
    process.stdin.on('data', (chunk: Buffer) => {
      for (let at = 0; at < chunk.length; at += STDIN_FRAME_BYTES)
        socket.write(encodeFrame(FRAME.STDIN, chunk.subarray(at, at + STDIN_FRAME_BYTES)));
    });
    process.stdin.on('end', () => socket.write(encodeFrame(FRAME.STDIN_END, '')));
  };
  const onData = (chunk: Buffer) => {
    for (const { type, payload } of reader.push(chunk)) {
      if (type === FRAME.STDOUT) process.stdout.write(payload);
      else if (type === FRAME.STDERR) process.stderr.write(payload);
      else if (type === FRAME.EXIT) {
        exited = true;
        process.exitCode = (JSON.parse(payload.toString('utf8')) as { code: number }).code;
        stopReading();
        socket.end();
      }
    }
  };
  // A full backlog (another process flooding the socket) refuses a connect with EAGAIN: the broker takes
  // connections as fast as they come, and drops those without the token, so a moment later there is room.
  const retryUntil = Date.now() + CONNECT_RETRY_MS;
  let connected = false;
  const onError = (error: NodeJS.ErrnoException) => {
    if (!connected && error.code === 'EAGAIN' && Date.now() < retryUntil) {
      socket.removeAllListeners('close');
      return void setTimeout(() => {
        socket = connect(target.options);
        listen();
      }, 10);
    }
    target.release();
    if (!exited) fail(unreachable(socketPath, error));
  };
  const listen = () => {
    socket.on('connect', () => {
      connected = true;
      onConnect();
    });
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', () => {
      if (!exited && process.exitCode === undefined)
        fail(`the launcher's broker at ${socketPath} closed the connection before the command ended`);
      stopReading();
    });
  };
  listen();
}

/** How long a connect refused by a full backlog (EAGAIN) is tried again. */
const CONNECT_RETRY_MS = 5_000;

/** `fed [--root …] mcp …`: the long-lived server, whose stdin is its requests. */
function isMcpServer(argv: readonly string[]): boolean {
  let i = 0;
  while (i < argv.length && (argv[i] === '--root' || argv[i]!.startsWith('--root='))) i += argv[i] === '--root' ? 2 : 1;
  return argv[i] === 'mcp';
}

function unreachable(socketPath: string, error: Error): string {
  return `cannot reach the federation through the launcher's broker at ${socketPath} (${BROKER_ENV}): ${error.message}; inside the sandbox fed runs only while fed launch runs the agent`;
}

/**
 * The content of `--body-file <path>` (not `-`), read from `cwd`, its argument turned into `-` in `argv`;
 * undefined when there is none. A file that cannot be read throws with the message fed gives.
 */
function readBodyFile(argv: string[], cwd: string): Buffer | undefined {
  const at = argv.findIndex(
    (arg, i) => (arg === '--body-file' && i + 1 < argv.length) || arg.startsWith('--body-file='),
  );
  if (at === -1) return undefined;
  const inline = argv[at]!.startsWith('--body-file=');
  const file = inline ? argv[at]!.slice('--body-file='.length) : argv[at + 1]!;
  if (file === '-') return undefined;
  const path = resolve(cwd, file);
  // Bounded and never blocking, as `fed signal send` reads it (the command then holds it to a signal's limit).
  let read: BoundedRead;
  try {
    read = readFileBounded(path);
  } catch {
    read = { ok: false, problem: 'ENOENT' };
  }
  if (!read.ok)
    throw new Error(
      `--body-file ${path} cannot be read (${read.problem}); give a readable file, or - for standard input`,
    );
  if (inline) argv[at] = '--body-file=-';
  else argv[at + 1] = '-';
  return read.bytes;
}
