import { connect } from 'node:net';
import {
  BROKER_ENV,
  BROKER_TOKEN_ENV,
  encodeFrame,
  FRAME,
  FrameReader,
  socketAddress,
  type BrokerRequest,
} from '../infra/process/broker-protocol.js';

/**
 * `fed` inside a sandbox (`$FED_BROKER` set by `fed launch`): the agent cannot write the federation, so
 * its command runs in the launcher's broker, outside the sandbox (src/apps/launch/agent-broker.ts). This
 * forwards the arguments, the working directory and — when an argument reads it (`--body-file -`) —
 * standard input, prints what the command prints as it comes, and exits with its exit code.
 */
export function runThroughBroker(env: NodeJS.ProcessEnv, argv: readonly string[], cwd: string): void {
  const socketPath = env[BROKER_ENV]!;
  const readsStdin = argv.some((arg, i) => (arg === '--body-file' && argv[i + 1] === '-') || arg === '--body-file=-');
  const request: BrokerRequest = { token: env[BROKER_TOKEN_ENV] ?? '', argv: [...argv], cwd, stdin: readsStdin };
  const fail = (message: string) => {
    process.stderr.write(`fed: ${message}\n`);
    process.exitCode = 1;
  };
  let target: ReturnType<typeof socketAddress>;
  try {
    target = socketAddress(socketPath);
  } catch (error) {
    return fail(unreachable(socketPath, error as Error));
  }
  const socket = connect(target.address);
  let exited = false;
  const stopReading = () => {
    if (readsStdin) process.stdin.destroy();
  };
  const reader = new FrameReader();
  socket.on('connect', () => {
    target.release();
    socket.write(encodeFrame(FRAME.REQUEST, JSON.stringify(request)));
    if (!readsStdin) return void socket.write(encodeFrame(FRAME.STDIN_END, ''));
    process.stdin.on('data', (chunk: Buffer) => socket.write(encodeFrame(FRAME.STDIN, chunk)));
    process.stdin.on('end', () => socket.write(encodeFrame(FRAME.STDIN_END, '')));
  });
  socket.on('data', (chunk: Buffer) => {
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
  });
  socket.on('error', (error) => {
    target.release();
    if (!exited) fail(unreachable(socketPath, error));
  });
  socket.on('close', () => {
    if (!exited && process.exitCode === undefined)
      fail(`the launcher's broker at ${socketPath} closed the connection before the command ended`);
    stopReading();
  });
}

function unreachable(socketPath: string, error: Error): string {
  return `cannot reach the federation through the launcher's broker at ${socketPath} (${BROKER_ENV}): ${error.message}; inside the sandbox fed runs only while fed launch runs the agent`;
}
