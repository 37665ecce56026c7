#!/usr/bin/env node
import { runCli } from './program.js';
import { runCliExitTasks } from './exit-tasks.js';
import { closeOpenBackends } from '../backend/network-backends.js';

// A reader that went away (`fed team list | head -1`) ends the output, not the command with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

// The only place that sets the process exit code; the library and commands return or throw.
process.exitCode = await runCli(process.argv.slice(2));
// After the command (and any nested runCli, as in `fed demo`): send the metrics left, in bounded time.
await runCliExitTasks();
// A JetStream backend's connection would keep the process alive.
await closeOpenBackends();
