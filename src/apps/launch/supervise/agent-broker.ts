import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { constants } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import type { z } from 'zod';
import { FedError, InvalidInputError, RefusedError } from '../../../core/errors.js';
import { brokerEventRequestSchema, brokerRequestSchema } from '../../../core/schema/broker-request.js';
import { unlinkQuietly } from '../../../infra/fs/atomic-write.js';
import { fileSystemErrorFor } from '../../../infra/fs/fs-errors.js';
import { isFolder } from '../../../infra/fs/path-kind.js';
import { packageBins, packageRoot } from '../../../infra/package-info.js';
import {
  BROKER_ENV,
  BROKER_TOKEN_ENV,
  encodeFrame,
  FRAME,
  FrameReader,
  socketAddress,
  type BrokerRequest,
} from '../../../infra/process/broker-protocol.js';
import { checkAgentCommand, isInside } from './agent-commands.js';
import type { CommandIo } from '../../../core/command-io.js';

export interface AgentBrokerOptions {
  /**
   * Where the agent reaches the broker: a Unix socket (an unsandboxed built-in agent's), in the team's own
   * workspace, which only its agent and fed can write; a port of the machine's loopback (`loopback`: a
   * sandbox without a network of its own, whose agent can make no Unix socket); or none of its own — a
   * sandbox with a network policy reaches it on its own loopback (serveFrom).
   */
  listen: { socketPath: string } | 'loopback' | 'handed';
  /** The federation root: the only `--root` an agent may name. */
  root: string;
  /** The environment the commands run with: the launcher's, with FED_ROOT and FED_TEAM naming the team. */
  env: NodeJS.ProcessEnv;
  /**
   * Applies an event of the team's lifecycle as `fed event` does, in this process (an EVENT request):
   * what `fed event` prints, and its warnings. A refusal or failure throws, as it makes `fed event` exit.
   */
  applyEvent: (event: { type: string; data: Record<string, unknown> }) => Promise<AppliedEvent>;
  /** How long a connection may take to send its request, and to go once answered: 10 s (tests shorten it). */
  requestTimeoutMs?: number;
  /** How long a new connection may take to send its first frame, the one with the token: 2 s (tests shorten it). */
  tokenTimeoutMs?: number;
  /**
   * Runs a fed command in this process (the CLI's runCli, handed down by the command that launches): the
   * agent's short one-shot commands run here. Without it, or for a command that reads standard input, runs
   * until stopped or may read for long (ownProcess), a child `fed` runs it.
   */
  runInProcess?: InProcessCommand;
}

/** What the CLI's runCli is: fed's arguments and where it prints and runs, to its exit code. */
export type InProcessCommand = (argv: readonly string[], io: CommandIo) => Promise<number>;

export interface AppliedEvent {
  stdout: string;
  warnings: readonly string[];
}

/** How a command through the broker ended: what it printed, and its exit code. */
interface Ended {
  stdout: string;
  stderr: string;
  code: number;
}

/** More commands at once than any agent needs is an agent trying to exhaust the machine. */
const MAX_RUNNING = 32;
/**
 * Anyone who reaches the socket can connect (another team's agent can), so a connection counts only once
 * it has shown the token, in its first frame: the agent's own connections at once (MAX_CONNECTIONS), and
 * how long one may take to send its request or to go once answered (REQUEST_TIMEOUT_MS). Connections yet
 * to show it get TOKEN_TIMEOUT_MS for that first frame, and are at most MAX_UNAUTHENTICATED: a newcomer
 * past that closes the oldest of them, so however many a hog opens, the agent's — which sends its
 * request the moment it connects — gets in.
 */
const MAX_CONNECTIONS = 64;
const MAX_UNAUTHENTICATED = 128;
const REQUEST_TIMEOUT_MS = 10_000;
const TOKEN_TIMEOUT_MS = 2_000;
/** How long a refused connection may stay to read its refusal. */
const REFUSED_LINGER_MS = 1_000;

/**
 * The broker of a sandboxed launch: inside the sandbox the federation is read-only, so the agent's `fed`
 * (src/cli/broker-client.ts) sends each command here, over a Unix socket, and it runs outside the
 * sandbox as a child `fed` of this very fed — as the team (FED_ROOT, FED_TEAM; a team marker the agent
 * writes cannot change that), in the agent's working directory. Only the commands an agent needs are run
 * (agent-commands.ts); the caller rule (SENDER_NOT_CALLER) keeps them acting as the team. Another team's
 * sandbox can reach the socket (a read-only mount still connects), so every request carries the token
 * only this agent's environment holds. A command whose client goes away is stopped. An event (an EVENT
 * request: the built-in agent's reports) is applied here, in the launcher, as `fed event` applies it for
 * the team — no process on either side — and is always seen to its end, as a `fed event` would be.
 */
export class AgentBroker {
  readonly token = randomBytes(32).toString('hex');
  private readonly running = new Set<ChildProcess>();
  private readonly applying = new Set<Promise<Ended>>();
  private readonly connections = new Set<Socket>();
  /** Connections that showed the token; the others, oldest first (a Set keeps the order they came in). */
  private readonly authenticated = new Set<Socket>();
  private readonly unauthenticated = new Set<Socket>();
  private readonly env: NodeJS.ProcessEnv;
  /**
   * The broker's own server, where there is one: a sandbox with a network policy has none, and its launch
   * loads Node's network modules while the agent starts (the listeners it hands up bring them), not before.
   */
  private listening: Server | undefined;
  /** What the agent's FED_BROKER names: the socket's path, or `tcp://127.0.0.1:<port>`. */
  private address: string | undefined;
  private closed: Promise<void> | undefined;

  private constructor(private readonly options: AgentBrokerOptions) {
    const env: NodeJS.ProcessEnv = { ...options.env };
    // The command must not forward itself here again; and the code cache lives in the temp directory the
    // agent can write, where it could plant compiled code for fed to run outside the sandbox.
    delete env[BROKER_ENV];
    delete env[BROKER_TOKEN_ENV];
    this.env = { ...env, FED_CODE_CACHE: 'off' };
  }

  /**
   * Listening where `options.listen` says: on its Unix socket (one a launch that died left there is
   * replaced), or on a free port of the machine's loopback.
   */
  static async start(options: AgentBrokerOptions): Promise<AgentBroker> {
    const broker = new AgentBroker(options);
    const { listen } = options;
    if (listen === 'handed') return broker;
    const socketPath = listen === 'loopback' ? undefined : listen.socketPath;
    if (socketPath !== undefined) {
      mkdirSync(dirname(socketPath), { recursive: true });
      unlinkQuietly(socketPath);
    }
    const unix = socketPath === undefined ? undefined : socketAddress(socketPath);
    const server = (broker.listening = createServer((socket) => broker.serve(socket)));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(unix ? { path: unix.address } : { host: '127.0.0.1', port: 0 }, resolve);
      });
    } catch (error) {
      throw new RefusedError(
        'AGENT_COMMAND',
        `cannot start the broker of the sandboxed agent${socketPath === undefined ? ' on the loopback' : ` at ${socketPath}`}: ${(error as Error).message}`,
      );
    } finally {
      unix?.release();
    }
    if (socketPath === undefined) broker.address = `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`;
    else {
      chmodSync(socketPath, 0o600);
      broker.address = socketPath;
    }
    return broker;
  }

  /**
   * Also serve what `listener` accepts: a sandbox's loopback, where its agent cannot make a Unix socket
   * (network/). No cap of the listener's own (`maxConnections`): it would count connections before their
   * token, and a hog holding them would keep the agent's commands out — the caps are serve()'s, token first.
   */
  serveFrom(listener: Server): void {
    listener.on('connection', (socket: Socket) => this.serve(socket));
  }

  /** What the agent's environment gets: where its fed commands go, and the token that lets them in. */
  agentEnv(): Record<string, string> {
    return {
      ...(this.address === undefined ? {} : { [BROKER_ENV]: this.address }),
      [BROKER_TOKEN_ENV]: this.token,
    };
  }

  /** Stop listening, stop the commands still running, remove the socket (once; later calls wait for it). */
  close(): Promise<void> {
    this.closed ??= (async () => {
      for (const child of this.running) child.kill('SIGKILL');
      for (const socket of this.connections) socket.destroy();
      if (this.listening) await new Promise<void>((resolve) => this.listening!.close(() => resolve()));
      // An event being applied is never cut short: its lifecycle write, journal and report finish.
      await Promise.all(this.applying);
      if (typeof this.options.listen === 'object') unlinkQuietly(this.options.listen.socketPath);
    })();
    return this.closed;
  }

  private serve(socket: Socket): void {
    this.connections.add(socket);
    if (this.unauthenticated.size >= MAX_UNAUTHENTICATED) this.unauthenticated.values().next().value?.destroy();
    this.unauthenticated.add(socket);
    const reader = new FrameReader();
    let state: 'token' | 'request' | 'running' | 'done' = 'token';
    let child: ChildProcess | undefined;
    // The connections are few and anyone who reaches the socket can connect: one that runs no command — its
    // request yet to come, or its answer given and the peer still there — is closed when its time is up,
    // however the peer trickles bytes, so that no one holds the connections the agent needs. (Unref'd: an
    // open connection keeps the launcher alive, never its deadline.)
    let deadline: NodeJS.Timeout | undefined;
    const closeIn = (ms: number | undefined) => {
      clearTimeout(deadline);
      if (ms !== undefined) deadline = setTimeout(() => socket.destroy(), ms).unref();
    };
    const timeout = this.options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    const send = (type: number, payload: Buffer | string) => {
      if (!socket.destroyed) socket.write(encodeFrame(type, payload));
    };
    const running = () => {
      state = 'running';
      closeIn(undefined);
    };
    const finish = (code: number) => {
      if (state === 'done') return;
      state = 'done';
      send(FRAME.EXIT, JSON.stringify({ code }));
      socket.end();
      closeIn(timeout);
    };
    socket.on('error', () => undefined);
    closeIn(this.options.tokenTimeoutMs ?? TOKEN_TIMEOUT_MS);
    socket.on('close', () => {
      this.connections.delete(socket);
      this.unauthenticated.delete(socket);
      this.authenticated.delete(socket);
      // The agent's fed went away (killed, or the agent stopped): its command goes too.
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    });
    socket.on('data', (chunk: Buffer) => {
      let frames;
      try {
        frames = reader.push(chunk);
      } catch {
        return void socket.destroy();
      }
      for (const { type, payload } of frames) {
        // The first frame shows the token before anything of it is looked at; without it the connection goes.
        if (state === 'token') {
          const refusal = this.authenticate(socket, type, payload);
          if (refusal) {
            send(FRAME.STDERR, `fed: ${refusal.message}\n`);
            state = 'done';
            send(FRAME.EXIT, JSON.stringify({ code: 2 }));
            // Ended, not destroyed: the peer may still be writing what follows its request (a write to a
            // closed socket fails there before the refusal is read); the short deadline closes it.
            socket.end();
            return void closeIn(REFUSED_LINGER_MS);
          }
          state = 'request';
          closeIn(timeout);
        }
        if (state === 'request' && type === FRAME.EVENT) {
          running();
          void this.event(payload).then((ended) => {
            if (ended.stdout) send(FRAME.STDOUT, ended.stdout);
            if (ended.stderr) send(FRAME.STDERR, ended.stderr);
            finish(ended.code);
          });
        } else if (state === 'request') {
          try {
            const request = this.accept(type, payload);
            const inProcess = this.options.runInProcess;
            if (inProcess && !request.stdin && !ownProcess(request.argv)) {
              running();
              void this.runHere(inProcess, request, send).then(finish);
            } else {
              child = this.run(request, send, finish);
              running();
            }
          } catch (error) {
            // A refusal is the agent's (exit 2); anything else (spawn failing) the broker's (exit 1).
            const refused = error instanceof FedError && error.refusal;
            send(FRAME.STDERR, `fed: ${error instanceof Error ? error.message : String(error)}\n`);
            finish(refused ? 2 : 1);
          }
        } else if (state === 'running' && type === FRAME.STDIN) child?.stdin?.write(payload);
        else if (state === 'running' && type === FRAME.STDIN_END) child?.stdin?.end();
      }
    });
  }

  /** The request, if it is well formed, carries this broker's token and asks for a command an agent may run. */
  private accept(type: number, payload: Buffer): BrokerRequest {
    const request = type === FRAME.REQUEST ? parseRequest(brokerRequestSchema, payload) : undefined;
    if (!request) throw new RefusedError('BROKER_REFUSED', 'the broker received a malformed request');
    this.admit();
    // Bad input, said as fed says it (exit 2), never a spawn that fails on it (exit 1).
    const nul = [...request.argv, request.cwd].find((arg) => arg.includes('\0'));
    if (nul !== undefined)
      throw new InvalidInputError(
        `${JSON.stringify(nul.replaceAll('\0', '\\0'))}: an argument or working directory holds a NUL byte, which no command line can carry; remove it`,
      );
    // Its working directory, when it is a folder in the federation; fed resolves relative paths there.
    const cwd = isAbsolute(request.cwd) && isInside(request.cwd, this.options.root) ? request.cwd : this.options.root;
    if (!isFolder(cwd))
      throw new InvalidInputError(
        `${cwd}: the working directory is not a folder (a FIFO, a file or a socket); run fed from a folder of the federation`,
      );
    checkAgentCommand(request.argv, cwd, this.options.root);
    return { ...request, cwd };
  }

  /**
   * The first frame of a connection carries this broker's token, and there is room for one more of the
   * agent's connections — or why not. Only the token is read here: nothing else of a stranger's frame is.
   */
  private authenticate(socket: Socket, type: number, payload: Buffer): RefusedError | undefined {
    const token = type === FRAME.REQUEST || type === FRAME.EVENT ? tokenOf(payload) : undefined;
    if (token === undefined) return new RefusedError('BROKER_REFUSED', 'the broker received a malformed request');
    const given = Buffer.from(token);
    const expected = Buffer.from(this.token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return new RefusedError(
        'BROKER_REFUSED',
        `the broker${this.address === undefined ? '' : ` at ${this.address}`} refused the request: ${BROKER_TOKEN_ENV} is not the token of the agent it serves`,
      );
    if (this.authenticated.size >= MAX_CONNECTIONS)
      return new RefusedError(
        'BROKER_REFUSED',
        `the broker already holds ${MAX_CONNECTIONS} connections of this agent; let its finished commands go (they are closed ${REQUEST_TIMEOUT_MS / 1000} s after their answer)`,
      );
    this.unauthenticated.delete(socket);
    this.authenticated.add(socket);
    return undefined;
  }

  /** There is room for one more command. */
  private admit(): void {
    if (this.running.size + this.applying.size >= MAX_RUNNING)
      throw new RefusedError(
        'BROKER_REFUSED',
        `the broker already runs ${MAX_RUNNING} commands for this agent; wait for them to end`,
      );
  }

  /**
   * An EVENT request, applied by `applyEvent` once admitted: ends as `fed event` would — its output and
   * warnings, or `fed: <message>` and exit 2 for a refusal (the agent's), 1 for a failure.
   */
  private event(payload: Buffer): Promise<Ended> {
    let applied: Promise<AppliedEvent>;
    try {
      const request = parseRequest(brokerEventRequestSchema, payload);
      if (!request) throw new RefusedError('BROKER_REFUSED', 'the broker received a malformed request');
      this.admit();
      if ('type' in request.data)
        throw new InvalidInputError('--data must not contain "type": the event type is the <EVENT> argument');
      applied = this.options.applyEvent({ type: request.type, data: request.data });
    } catch (error) {
      applied = Promise.reject(error);
    }
    const ended = applied.then(
      ({ stdout, warnings }): Ended => ({
        stdout,
        stderr: warnings.map((warning) => `warning: ${warning}\n`).join(''),
        code: 0,
      }),
      (error: unknown): Ended => {
        const known = error instanceof FedError ? error : fileSystemErrorFor(error);
        const message = known
          ? known.message
          : `unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
        return { stdout: '', stderr: `fed: ${message}\n`, code: known?.refusal ? 2 : 1 };
      },
    );
    this.applying.add(ended);
    void ended.then(() => this.applying.delete(ended));
    return ended;
  }

  /**
   * `fed <argv>` in this very process (`runInProcess`), as the team: no second fed to start, which cost
   * an agent's `fed event` twice the command itself. Its output goes back as it is printed; like an event
   * it is seen to its end (close waits for it), and an error it throws is its exit code, never the launcher's.
   */
  private runHere(
    runInProcess: InProcessCommand,
    request: BrokerRequest,
    send: (type: number, payload: Buffer | string) => void,
  ): Promise<number> {
    const ended = runInProcess(request.argv, {
      stdout: (text) => send(FRAME.STDOUT, text),
      stderr: (text) => send(FRAME.STDERR, text),
      // fed's own terminal sequences: the agent's output is never a terminal (isTTY), so they are plain output.
      terminal: (text) => send(FRAME.STDOUT, text),
      env: this.env,
      cwd: request.cwd,
      isTTY: false,
    })
      .catch((error: unknown) => {
        send(FRAME.STDERR, `fed: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
        return 1;
      })
      .then((code) => ({ stdout: '', stderr: '', code }));
    this.applying.add(ended);
    void ended.then(() => this.applying.delete(ended));
    return ended.then(({ code }) => code);
  }

  /** `fed <argv>` outside the sandbox, its output streamed back, its exit code last. */
  private run(
    request: BrokerRequest,
    send: (type: number, payload: Buffer | string) => void,
    finish: (code: number) => void,
  ): ChildProcess {
    const child = spawn(process.execPath, [join(packageRoot(), packageBins().fed!), ...request.argv], {
      cwd: request.cwd,
      env: this.env,
      stdio: [request.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    this.running.add(child);
    child.stdin?.on('error', () => undefined);
    child.stdout!.on('data', (chunk: Buffer) => send(FRAME.STDOUT, chunk));
    child.stderr!.on('data', (chunk: Buffer) => send(FRAME.STDERR, chunk));
    child.on('error', (error) => {
      this.running.delete(child);
      send(FRAME.STDERR, `fed: the broker cannot run fed: ${error.message}\n`);
      finish(1);
    });
    child.on('close', (code, signal) => {
      this.running.delete(child);
      finish(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
    return child;
  }
}

/**
 * A command that gets a `fed` process of its own: `fed mcp` and `fed signal watch` run until stopped (a
 * process can be); `fed deliverable check` and `fed log` may read a large file for long, which in this
 * process would hold up the launcher's supervision of the agent.
 */
function ownProcess(argv: readonly string[]): boolean {
  let i = 0;
  while (i < argv.length && (argv[i] === '--root' || argv[i]!.startsWith('--root='))) i += argv[i] === '--root' ? 2 : 1;
  return ['mcp', 'deliverable', 'log'].includes(argv[i] ?? '') || (argv[i] === 'signal' && argv[i + 1] === 'watch');
}

/** The `token` of a request's JSON, else undefined: read before the request is, which only the agent may send. */
function tokenOf(payload: Buffer): string | undefined {
  try {
    const value = JSON.parse(payload.toString('utf8')) as unknown;
    const token = value && typeof value === 'object' ? (value as { token?: unknown }).token : undefined;
    return typeof token === 'string' ? token : undefined;
  } catch {
    return undefined;
  }
}

/** The request in `payload`: JSON of the schema's shape, else undefined (malformed). */
function parseRequest<T>(schema: z.ZodType<T>, payload: Buffer): T | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    // Not JSON: left undefined, which no request schema takes.
  }
  return schema.safeParse(value).data;
}
