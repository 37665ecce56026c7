import { spawn } from 'node:child_process';
import { fstatSync, writeSync } from 'node:fs';
import { openForAppend } from '../../../infra/fs/open-for-append.js';
import { LIFELINE_FD, watchLifeline } from '../../../infra/process/lifeline.js';
import { handOverListeners } from '../../../infra/process/listener-channel.js';
import type { SpareLaunch } from './spare-watchdogs.js';
import { endLeftovers, endSandbox, groupMembers, sandboxInit, signalEach, signalSandbox } from './agent-stop.js';

/**
 * The agent's supervisor: `node agent-watchdog.js <graceMs> [--listen <port>,…] [--sandboxed] <program>
 * [args…]`. `fed launch` starts it as the leader of the agent's own process group, with a pipe on fd 3 that
 * only the launcher holds. Otherwise it is transparent: the agent inherits stdin/stdout/stderr, and its exit
 * code or signal is passed on — but only once nothing the agent started is left:
 * - When the agent exits, what it left behind in its process group is stopped (SIGTERM, SIGKILL after the
 *   grace period) before the exit is passed on, so nothing rewrites the deliverable after fed checked it.
 *   In the sandbox (`--sandboxed`: the program is bwrap, in a session of its own) the agent's PID namespace
 *   ends with it, every process in it whatever its group.
 * - A stop from fed is SIGTERM to this process group. Outside the sandbox it reaches the agent directly;
 *   in the sandbox the watchdog passes it on to the sandbox's processes (bwrap itself, signalled, would die
 *   and take them with it by SIGKILL, without a chance to save their session).
 * - When the launcher dies — even by SIGKILL — the kernel closes the pipe; the watchdog then stops it all
 *   itself, so no agent ever runs unsupervised.
 * - With `--listen` (a sandbox with a network policy) it runs in the sandbox's network namespace, under the
 *   bwrap that made it (sandbox-network.ts: networkOfItsOwn): before the agent starts it listens on the
 *   ports there and hands each socket to the launcher over its IPC channel, and it says the agent's exit
 *   there too before it passes it on (bwrap passes a signal on only as an exit code).
 *
 * `node agent-watchdog.js --spare` is the same watchdog started ahead of its launch (spare-watchdogs.ts), so a
 * dispatch does not wait for a node process to start before the agent's: it waits for one IPC message, the
 * launch (a SpareLaunch: the arguments above, and the agent's working directory, environment, stdin and log,
 * which it opens itself as its stderr), and then supervises as above. A launcher gone before the message: it exits.
 */
/** The signals fed stops an agent's group with (and a terminal's). */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** What the launcher's end of the lifeline closing does: before a spare's launch came, nothing is left to stop. */
let onLauncherGone: () => void = () => process.exit(0);
watchLifeline(LIFELINE_FD, () => onLauncherGone());

const argv = process.argv.slice(2);
if (argv[0] === '--spare') {
  // The IPC channel keeps the spare alive until its launch comes; the lifeline does not.
  process.once('message', (launch: SpareLaunch) => {
    if (process.connected) process.disconnect();
    supervise({ ...launch, sayExit: false });
  });
} else {
  const [graceText, ...rest] = argv;
  const listen = rest[0] === '--listen' ? rest[1]!.split(',').map(Number) : undefined;
  const command = listen ? rest.slice(2) : rest;
  const sandboxed = command[0] === '--sandboxed';
  const [file, ...args] = sandboxed ? command.slice(1) : command;
  if (!file || !Number.isFinite(Number(graceText))) {
    process.stderr.write(
      'usage: agent-watchdog <graceMs> [--listen <port>,…] [--sandboxed] <program> [args…] (started by fed launch)\n',
    );
    process.exit(2);
  }
  const run = () => supervise({ graceMs: Number(graceText), sandboxed, file, args, stdin: true, sayExit: !!listen });
  if (!listen) run();
  else {
    // A stop that comes while the sockets are handed over is kept, and begun the moment the agent starts:
    // this process inherits those signals ignored (networkOfItsOwn), so unheard they would be lost.
    let stopped = false;
    const early = () => void (stopped = true);
    for (const name of STOP_SIGNALS) process.on(name, early);
    // The agent may start once the sockets are on their way: a connection it makes waits in their backlog.
    handOverListeners(listen, 'sent').then(
      () => {
        for (const name of STOP_SIGNALS) process.off(name, early);
        const stop = run();
        if (stopped) stop();
      },
      (error: Error) => {
        process.stderr.write(`fed: the agent's watchdog could not listen for the sandbox: ${error.message}\n`);
        process.exit(125);
      },
    );
  }
}

function supervise({
  graceMs,
  sandboxed,
  file,
  args,
  cwd,
  env,
  log: logged,
  stdin,
  sayExit,
}: SpareLaunch & { sayExit: boolean }): () => void {
  // A spare opens the agent's log itself (its own stderr goes nowhere): as the launcher did, never a link
  // or a FIFO put in its place, and only the very file the launcher wrote the header to. Its own messages
  // go there too. Otherwise stderr is the log already.
  let log: number | undefined;
  if (logged) {
    try {
      log = openForAppend(logged.file);
    } catch {
      process.exit(127);
    }
    const opened = fstatSync(log);
    if (opened.dev !== logged.dev || opened.ino !== logged.ino) process.exit(127);
  }
  const say = (text: string) => (log === undefined ? process.stderr.write(text) : writeSync(log, text));
  process.on('uncaughtException', (error) => {
    say(`fed: the agent's watchdog failed: ${error.stack ?? error.message}\n`);
    process.exit(127);
  });

  /** The other processes of this process group: what the agent (outside the sandbox) started and left. */
  const othersInGroup = () => groupMembers(process.pid, process.pid);

  const signalGroup = (name: NodeJS.Signals) => {
    try {
      process.kill(-process.pid, name);
    } catch {
      // the group is gone
    }
  };

  // In the sandbox, bwrap leads a session of its own: fed's SIGTERM to this group does not reach it.
  const child = spawn(file, args, {
    cwd,
    env,
    stdio: [stdin ? 'inherit' : 'ignore', 'inherit', log ?? 'inherit'],
    detached: sandboxed,
  });
  child.on('error', (error) => {
    say(`fed: cannot start the agent "${file}": ${error.message}\n`);
    process.exit(127);
  });

  /** Whether bwrap still runs: once it has exited its pid is not ours to signal (it may be reused). */
  const sandboxRunning = () => sandboxed && child.exitCode === null && child.signalCode === null;

  let stopping = false;
  /**
   * A stop began (fed's SIGTERM, SIGINT or SIGHUP to the group, or the launcher gone): the agent is asked to
   * end, and whatever still runs after the grace period is killed. In the sandbox that is its init: the
   * kernel then kills everything in the namespace before bwrap sees the init exit, so the exit passed on
   * comes after everything is gone.
   */
  function beginStop(): void {
    if (stopping) return;
    stopping = true;
    if (sandboxed) void signalSandbox(child.pid!, 'SIGTERM', sandboxRunning);
    // else the signal reached the agent's group already
    setTimeout(() => {
      if (sandboxed) void signalSandbox(child.pid!, 'SIGKILL', sandboxRunning);
      signalEach(othersInGroup(), 'SIGKILL');
    }, graceMs).unref();
  }
  for (const name of STOP_SIGNALS) process.on(name, beginStop);

  // In the sandbox: its init, once bwrap started it (bwrap passes the command's exit on before it is gone).
  const init = sandboxed ? sandboxInit(child.pid!, sandboxRunning) : Promise.resolve(undefined);

  child.on('exit', (code, signal) => {
    // Whatever the agent left behind ends before its exit is passed on, so before fed checks the deliverable;
    // in the sandbox, the namespace with its init.
    const ended = endLeftovers(othersInGroup, graceMs, stopping)
      .then(() => init)
      .then(
        (sandbox) =>
          sandbox &&
          endSandbox(sandbox, graceMs, (pid) =>
            say(`fed: the sandbox's init (pid ${pid}) outlived SIGKILL; passing the exit on\n`),
          ),
      );
    void ended.then(async () => {
      // Said to the launcher first, where bwrap stands between: it cannot pass a signal on.
      if (sayExit && process.connected)
        await new Promise<void>((resolve) => process.send!({ exit: { code, signal } }, () => resolve()));
      if (signal) {
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
      } else process.exit(code ?? 1);
    });
  });

  onLauncherGone = () => {
    say(`fed: the launcher is gone; stopping the agent (pid ${child.pid})\n`);
    beginStop();
    if (!sandboxed) signalGroup('SIGTERM');
  };
  return beginStop;
}
