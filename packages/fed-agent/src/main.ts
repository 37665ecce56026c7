import { join } from 'node:path';
import {
  archetypeOf,
  closeOpenBackends,
  consultantArchetype,
  consultantEntry,
  deliverableArchetype,
  FedError,
  getTeam,
  listenForLauncher,
  loadTeamLifecycle,
  openFederation,
  RefusedError,
  snapshotOfMachine,
} from 'fed/agent';
import { readLaunchContext } from './agent-context.js';
import { runConsultant } from './consult.js';
import { fedEventReporter, runFed } from './fed-event.js';
import { runAgent } from './run-agent.js';

/**
 * `fed-agent`: the built-in agent, started by `fed launch` in the team workspace. For a deliverable team
 * it writes the document — on a fix attempt (the launch context's `fix`: fed refused the last one) the
 * fullest document it can, instead of starting over; for a consultant team it answers the questions
 * waiting. Exit 0 when the document is written (or the team was already complete) or every waiting
 * question is answered, 1 when the team failed, a fix attempt had nothing to change or something broke,
 * 2 when it was started wrongly (no or bad launch context, a state it cannot work in, an archetype it has
 * no work for).
 *
 * There is deliberately no SIGTERM handler: the default action ends the process at once, even in the
 * middle of the synchronous scan (a JavaScript handler would wait for it), which is what the launcher
 * wants when it pauses the team. Nothing is left half-written — the document is replaced atomically, and
 * a `fed event` already running finishes on its own.
 */
async function main(): Promise<number> {
  const context = readLaunchContext(process.env);
  const { backend, config } = openFederation(context.root);
  const team = getTeam(await backend.registry.read(), context.team);
  const log = (line: string) => process.stdout.write(`fed-agent: ${line}\n`);
  const fedOptions = { root: context.root, team: context.team, cwd: context.workspace, env: process.env };
  const report = fedEventReporter(fedOptions);
  const io = {
    report: async (type: string, data: Record<string, unknown>, onSent?: () => void) => {
      const output = await report(type, data, onSent);
      process.stdout.write(output);
      return output;
    },
    log,
    now: () => new Date(),
    federationReport: join(context.root, config.federationReport),
  };
  // Which work the team's archetype asks for; an archetype fed-agent has no work for is refused.
  const archetype = archetypeOf(team);
  if (archetype === consultantArchetype) {
    const outcome = await runConsultant(context, {
      ...io,
      lifecycle: async () => {
        const snapshot = snapshotOfMachine(
          consultantEntry,
          (await loadTeamLifecycle(team, backend.lifecycles)).snapshot,
        );
        return { state: String(snapshot.value), current: snapshot.context.current };
      },
      questionBody: async (signalId) =>
        (await backend.signals.inbox({ id: team.domainId, entry: team }).find(signalId))[0]?.message.body ?? '',
      fed: (args) => runFed(fedOptions, args),
    });
    if (outcome.status === 'waiting') log(`answered ${outcome.answered} question(s); no question is waiting`);
    return outcome.status === 'failed' ? 1 : 0;
  }
  if (archetype !== deliverableArchetype) {
    throw new RefusedError(
      'AGENT_ARCHETYPE',
      `fed-agent does the work of deliverable and consultant teams; team "${team.domainId}" is a ${team.archetypeId} team — launch it with an LLM agent (fed launch --agent <command>)`,
    );
  }
  const outcome = await runAgent(context, team.domain, io);
  if (outcome.status === 'already-complete') log(`team "${context.team}" is already complete; nothing to do`);
  return outcome.status === 'failed' || outcome.status === 'unfixed' ? 1 : 0;
}

// No top-level await: the program is bundled as the body of a CommonJS function (bin.ts).
/** Settles when the agent is done (the build's training run then keeps the code it compiled: bin.ts). */
export const finished: Promise<void> = (async () => {
  // Sandboxed with a network policy, the agent's first work is its sandbox's: the ports it listens on
  // handed to the launcher (the broker it reports to is served on one). A sandbox whose ports cannot be
  // had ends as one whose listener failed would (125), before the agent did anything.
  try {
    await listenForLauncher(process.env);
  } catch (error) {
    process.stderr.write(`fed-agent: the sandbox's listener: ${(error as Error).message}\n`);
    process.exitCode = 125;
    return;
  }
  try {
    process.exitCode = await main();
  } catch (error) {
    const refusal = error instanceof FedError && error.refusal;
    process.stderr.write(
      `fed-agent: ${error instanceof FedError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = refusal ? 2 : 1;
  }
  // A JetStream backend's connection would keep the process alive.
  await closeOpenBackends();
})();
