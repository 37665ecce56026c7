/**
 * Work the CLI owes before the process ends (the last metrics export), registered by whatever started it.
 * A module of its own so main.ts can run these without loading what registered them.
 */
const tasks: (() => Promise<void>)[] = [];

export function atCliExit(task: () => Promise<void>): void {
  tasks.push(task);
}

/** Run every registered task once, in order; a task registered while running (a nested command) runs too. */
export async function runCliExitTasks(): Promise<void> {
  for (let task = tasks.shift(); task !== undefined; task = tasks.shift()) await task();
}
