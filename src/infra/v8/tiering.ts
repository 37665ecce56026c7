/**
 * How fed tunes V8's tiering in the processes of a run — `fed-agent` and the launcher that supervises
 * agents and applies their events (`fed run`, `fed launch`, `fed demo`): V8 optimises a function only after
 * 16 times the work its default asks for. Both are short or mostly idle: a fed-agent run takes well under a
 * second for a small codebase, and a launcher's work comes in short bursts (a launch, an event, a judged
 * document). With V8's defaults their optimising compilers compiled code that had finished by the time the
 * optimised version was ready — most of it the Markdown parser's: a quarter to a third of a fed-agent's CPU,
 * about a fifth of a `fed run` coordinator's, on the cores the other teams of a `fed run --parallel`
 * need. With the larger budget only the truly hot functions are optimised, so a large codebase or a long
 * run still gets optimised code where it matters. Measured on each Node line in `npm run bench run-parallel` (tuned
 * against V8's defaults, interleaved).
 *
 * The flags differ by V8 line, and V8 prints `Error: unrecognized flag` for one it lacks (Node 22 and later
 * have no `--interrupt-budget`), which fed would then read in an agent's log as the agent failing. So only
 * a V8 line whose flags were checked gets any: a newer V8 runs with its defaults until its flags are
 * checked (packages/fed-agent/test/e2e/agent-v8-flags.test.ts asks each Node binary CI runs for its
 * `--v8-options`). The flags are set before any code is compiled, and V8 rejects a code cache made under
 * other flags: the tiering's name is part of each code cache's name.
 */

/** Set to `off` to run fed's processes with V8's own tiering (to measure what the tuning gains). */
export const TIERING_ENV = 'FED_V8_TIERING';

/** The tiering a process runs with: its name (part of its code cache's name) and V8 flags. */
export interface Tiering {
  /** `tuned` (fed's flags) or `v8-defaults` (none: asked for, or a V8 line fed has not checked). */
  name: 'tuned' | 'v8-defaults';
  flags: string[];
}

/** The work V8 11.3 asks for before optimising a function (`--interrupt-budget`, in bytecode bytes). */
const V8_11_3_INTERRUPT_BUDGET = 66 * 1024;
/** Invocations before V8 11.8 to 14 optimise a function with TurboFan (its default). */
const TURBOFAN_INVOCATIONS = 3000;
const FACTOR = 16;

/**
 * fed's tiering flags for the V8 whose version is `v8Version` (`process.versions.v8`), none for a line
 * not checked. V8 11.3 (Node 20) has one interrupt budget for every tier; from 11.8 (Node 21) to 14
 * (Node 26) TurboFan has an invocation count of its own. Node 24 and 26 also turn on Maglev, a middle
 * tier that compiled another 120 functions of a small fed-agent run; with it off, fed tiers the same way
 * on every Node line (20 and 22 ship it off) and used no more CPU than with Maglev's count raised 16× as
 * well (within 2 %, on a small codebase and on 3 000 files).
 */
export function tieringFlags(v8Version: string): string[] {
  const [major = 0, minor = 0] = v8Version.split('.').map(Number);
  if (major === 11 && minor >= 3 && minor < 8) return [`--interrupt-budget=${FACTOR * V8_11_3_INTERRUPT_BUDGET}`];
  if ((major === 11 && minor >= 8) || (major >= 12 && major <= 14))
    return [`--invocation-count-for-turbofan=${FACTOR * TURBOFAN_INVOCATIONS}`, '--no-maglev'];
  return [];
}

/**
 * The tiering a process runs with, from its environment and V8's version. Throws when `FED_V8_TIERING`
 * holds anything but `off`: a typo would otherwise measure the wrong thing.
 */
export function chosenTiering(env: NodeJS.ProcessEnv, v8Version: string): Tiering {
  const asked = env[TIERING_ENV];
  if (asked !== undefined && asked !== '' && asked !== 'off')
    throw new Error(
      `${TIERING_ENV}=${asked}: expected "off" (V8's own tiering) or nothing (fed's); unset it or set it to off`,
    );
  const flags = asked === 'off' ? [] : tieringFlags(v8Version);
  return { name: flags.length > 0 ? 'tuned' : 'v8-defaults', flags };
}
