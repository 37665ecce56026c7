import type { Command } from 'commander';
import type { ConsumeResult } from '../../actors/consume-inbox.js';
import { runActors } from '../../actors/run-actors.js';
import { createInspection } from '../../inspect/create-inspection.js';
import { loadHooks, type LoadedHooks } from '../../hooks/load-hooks.js';
import { notifySignals, notifyTransitions } from '../../hooks/notify-hooks.js';
import { federationContext, type CliIo } from '../io.js';
import { Interrupt } from '../interrupt.js';

function describe(result: ConsumeResult): string {
  const lines: string[] = [];
  for (const step of result.steps) {
    const line = step.line;
    if (!line) continue;
    const change = line.from === line.to ? `${line.event} (still ${line.to})` : `${line.from} → ${line.to} (${line.event})`;
    lines.push(`${result.team}: ${change}${step.outcome === 'ignored' ? ` — ${step.note}` : ''}`);
  }
  for (const q of result.quarantined) lines.push(`${result.team}: quarantined ${q.file}: ${q.reason}`);
  for (const path of result.restored) lines.push(`${result.team}: moved ${path} back from quarantine: it is a valid signal now`);
  if (result.deferred) lines.push(`${result.team}: ${result.deferred} signal(s) wait until the team resumes`);
  return lines.map((l) => `${l}\n`).join('');
}

async function notifyAll(hooks: LoadedHooks, result: ConsumeResult): Promise<string[]> {
  const lines = result.steps.flatMap((step) => (step.line ? [step.line] : []));
  return [...(await notifySignals(hooks, result.steps)), ...(await notifyTransitions(hooks, result.team, lines))];
}

export function registerActors(program: Command, io: CliIo): void {
  const actors = program.command('actors').description("run the file-backed team actors that turn inbox signals into lifecycle events");
  actors
    .command('run')
    .description('consume inbox signals of every active team (or --team): apply, persist, acknowledge; then watch until interrupted')
    .option('--team <team>', 'only this team')
    .option('--once', 'process what is pending and exit instead of watching')
    .option('--inspect', 'serve the Stately inspector for the actors (prints the page URL)')
    .option('--inspect-log <file>', 'append xstate inspection events to <file> as JSON lines')
    .option('--json', 'print one JSON object per consume (JSON lines)')
    .action(async (options: { team?: string; once?: boolean; json?: boolean; inspect?: boolean; inspectLog?: string }, command: Command) => {
      const ctx = federationContext(command, io);
      const hooks = await loadHooks(ctx.root, ctx.config.config, 'actors run');
      const inspection = await createInspection({ inspect: options.inspect, logFile: options.inspectLog });
      if (inspection.url) io.stderr(`inspector: open ${inspection.url}\n`);
      const stop = new Interrupt();
      try {
        const results = await runActors(ctx.root, {
          team: options.team,
          once: options.once,
          signal: stop.signal,
          inspect: inspection.inspect,
          onResult: async (result) => {
            io.stdout(options.json ? `${JSON.stringify(result)}\n` : describe(result));
            // Hooks run after the state is saved; a throwing one is reported and changes nothing.
            for (const warning of await notifyAll(hooks, result)) io.stderr(`warning: ${warning}\n`);
          },
          onSkip: (team, reason) => io.stderr(`warning: skipping ${team} for now: ${reason}\n`),
        });
        for (const warning of results.flatMap((r) => r.warnings)) io.stderr(`warning: ${warning}\n`);
        if (options.once && !options.json) {
          const summary = results.map((r) => `${r.team}: ${r.state}`).join(', ');
          io.stdout(results.length ? `done — ${summary}\n` : 'no team to run (onboard one with: fed team onboard <domain>)\n');
        }
      } finally {
        await inspection.stop();
        stop.dispose();
      }
    });
}
