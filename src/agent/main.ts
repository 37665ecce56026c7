#!/usr/bin/env node
import { FedError } from '../errors.js';
import { getTeam } from '../registry/find-team.js';
import { closeOpenBackends, openBackend } from '../backend/open-backend.js';
import { readLaunchContext } from './agent-context.js';
import { fedEventReporter } from './fed-event.js';
import { runAgent } from './run-agent.js';

/**
 * `fed-agent`: the built-in deliverable agent, started by `fed launch` in the team workspace. Exit 0 when
 * the document is written (or the team was already complete), 1 when the team failed or something broke,
 * 2 when it was started wrongly (no or bad launch context, a state it cannot work in).
 *
 * There is deliberately no SIGTERM handler: the default action ends the process at once, even in the
 * middle of the synchronous scan (a JavaScript handler would wait for it), which is what the launcher
 * wants when it pauses the team. Nothing is left half-written — the document is replaced atomically, and
 * a `fed event` already running finishes on its own.
 */
async function main(): Promise<number> {
  const context = readLaunchContext(process.env);
  const domain = getTeam(await openBackend(context.root).registry.read(), context.team).domain;
  const log = (line: string) => process.stdout.write(`fed-agent: ${line}\n`);
  const report = fedEventReporter({ root: context.root, team: context.team, cwd: context.workspace, env: process.env });
  const outcome = await runAgent(context, domain, {
    report: async (type, data) => {
      const output = await report(type, data);
      process.stdout.write(output);
      return output;
    },
    log,
    now: () => new Date(),
  });
  if (outcome.status === 'already-complete') log(`team "${context.team}" is already complete; nothing to do`);
  return outcome.status === 'failed' ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (error) {
  const refusal = error instanceof FedError && error.refusal;
  process.stderr.write(`fed-agent: ${error instanceof FedError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = refusal ? 2 : 1;
}
// A JetStream backend's connection would keep the process alive.
await closeOpenBackends();
