/**
 * The young generation of a long-running `fed ui` (command-names.ts, SMALL_YOUNG_GENERATION_COMMANDS). Its
 * first board over a large federation (1 000 teams, 100 000 signals) allocates fast and keeps little, and
 * V8 grows the space its young objects are made in to 16 MiB twice over — 32 MiB of resident memory the
 * server keeps for the rest of its life, where 4 MiB each hold what it needs: its peak RSS on Node 26 fell
 * from 157 to 137 MiB, the time to its first page and its CPU unchanged (docs/operations.md, the dashboard
 * at scale). V8 sizes that space when it starts, from its command line only (`v8.setFlagsFromString` once the
 * heap exists changes nothing), so the `fed` bin runs the command again with the flag, in the same
 * process (`process.execve`, Node 22.15 and later; on an older Node it runs as it is).
 */

/** The V8 flag that sizes each half of the young generation, in MiB. */
const SEMI_SPACE_FLAG = '--max-semi-space-size';
const SMALL_YOUNG_GENERATION_FLAG = `${SEMI_SPACE_FLAG}=4`;

/**
 * The node arguments (`process.execArgv`, then the flag) to run the command again with, or undefined to
 * run it as it is: when node was already given a young generation's size — on its command line, in
 * NODE_OPTIONS (a user's choice, kept), or by the run before this one — and when it was started with an
 * inspector (`--inspect…`), whose debugger, attached to this process, would lose it.
 */
export function smallYoungGenerationArgs(
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string[] | undefined {
  // V8 takes its flags' names with `_` or `-` alike.
  const name = (arg: string) => arg.split('=')[0]!.replaceAll('_', '-');
  const keepsItAsItIs = (arg: string) => name(arg) === SEMI_SPACE_FLAG || name(arg).startsWith('--inspect');
  if (execArgv.some(keepsItAsItIs) || (nodeOptions ?? '').split(/\s+/).some(keepsItAsItIs)) return undefined;
  return [...execArgv, SMALL_YOUNG_GENERATION_FLAG];
}
