import { setFlagsFromString } from 'node:v8';

/**
 * Loaded by `fed-agent` before anything else (src/apps/agent/bin.ts): V8 optimises a function only after
 * 16 times the work its default asks for. A fed-agent run is short — well under a second for a small
 * codebase, a few seconds for 5 000 files — and with the default V8's optimising compiler (TurboFan)
 * compiled about 100 functions of one small-codebase run, most of them the Markdown parser's, on code
 * that had finished by the time the optimised version was ready: a third of the process's CPU time, on
 * the cores the other teams of a `fed run --parallel` need. With the larger budget only the truly hot
 * functions are optimised (6 in that run), so a large codebase still gets optimised code where it
 * matters. Measured in `npm run bench run-parallel`; `test/e2e/agent-startup.test.ts` counts them.
 */
const DEFAULT_INTERRUPT_BUDGET = 66 * 1024;
setFlagsFromString(`--interrupt-budget=${16 * DEFAULT_INTERRUPT_BUDGET}`);
