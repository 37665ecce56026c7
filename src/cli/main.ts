import { runCommand, type CliOutcome } from './program.js';
import { runCliExitTasks } from './exit-tasks.js';
import { onStdoutReaderGone, outputPending } from './stdout.js';
import { closeOpenBackends } from '../adapters/network-backends.js';

/**
 * The CLI: run by the `fed` bin (src/cli/bin.ts) from the bundle dist/bin/cli/main.cjs (or a command's
 * own, such as dist/bin/cli/event.cjs: src/cli/command-names.ts), or directly by
 * tsx in development (`npm run diagrams`). No top-level await: the bundle is CommonJS, so that the bin
 * can run it through a V8 code cache.
 */
async function main(): Promise<CliOutcome> {
  // A reader that went away (`fed team list | head -1`) ends the output, not the command with a stack trace.
  onStdoutReaderGone(() => process.exit(process.exitCode ?? 0));
  const outcome = await runCommand(process.argv.slice(2));
  // The only place that sets the process exit code; the library and commands return or throw.
  process.exitCode = outcome.exitCode;
  // After the command (and any nested runCli, as in `fed demo`): send the metrics left, in bounded time.
  await runCliExitTasks();
  // A JetStream backend's connection would keep the process alive.
  await closeOpenBackends();
  return outcome;
}

/**
 * Settles with how the command ended when it is done (the bin writes the code cache then: a complete one
 * only from a command that ran to its end); a failure is the process's.
 */
export const finished: Promise<CliOutcome> = main();

/**
 * Called by the bin once the command is done and its code cache written: the process exits now rather
 * than let node tear its heap down page by page (2–5 ms of a one-shot command, measured) — unless output
 * is still queued in a stream, which a natural exit lets drain.
 */
export function exitWhenDone(): void {
  if (!outputPending()) process.exit();
}
