import type { ConsumeResult } from '../actors/consume-inbox.js';
import type { LifecycleStep } from '../actors/lifecycle-types.js';
import type { JournalLine } from '../../core/schema/lifecycle-state.js';
import type { LoadedHooks } from './load-hooks.js';

/** Tell the hooks about the signals a consume took in (`onSignal`); returns the hooks' warnings. */
export async function notifySignals(
  hooks: LoadedHooks | undefined,
  steps: readonly LifecycleStep[],
): Promise<string[]> {
  const warnings: string[] = [];
  for (const step of steps) {
    if (!step.signal) continue;
    const warning = await hooks?.notify('onSignal', step.signal);
    if (warning) warnings.push(warning);
  }
  return warnings;
}

/** Tell the hooks about state changes (`onTransition`) among journal lines; returns the hooks' warnings. */
export async function notifyTransitions(
  hooks: LoadedHooks | undefined,
  team: string,
  lines: readonly JournalLine[],
): Promise<string[]> {
  const warnings: string[] = [];
  for (const line of lines) {
    if (line.from === line.to) continue;
    const warning = await hooks?.notify('onTransition', team, line.from, line.to, line.event);
    if (warning) warnings.push(warning);
  }
  return warnings;
}

/** Both, for one consume of a team's inbox: its signals, then its state changes. */
export async function notifyConsumed(hooks: LoadedHooks, result: ConsumeResult): Promise<string[]> {
  const lines = result.steps.flatMap((step) => (step.line ? [step.line] : []));
  return [...(await notifySignals(hooks, result.steps)), ...(await notifyTransitions(hooks, result.team, lines))];
}
