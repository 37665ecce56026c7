/**
 * The one way a test skips (the linter refuses any other `skipIf`, `it.skip` or `ctx.skip()`): a suite that
 * needs something this machine lacks — a system program (bwrap, nats-server, chromium), mount(8), a
 * kernel file, a corpus — skips without it, with one loud line naming the suite and what is missing. Under
 * `CI` it never skips: .ci/run installs everything the suites need, so a missing one throws as the file is
 * collected, failing the run with its name, and CI never passes by skipping.
 *
 * `missing` says what is missing (and how to get it), or is undefined when nothing is.
 */
export function skipWithout(
  suite: string,
  missing: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = console.warn,
): boolean {
  if (missing === undefined) return false;
  if (env.CI) throw new Error(`${suite} cannot run: ${missing}; CI never skips it (.ci/run installs what it needs)`);
  // Said once per suite, however many of its tests ask.
  if (!warned.has(suite)) warn(`SKIPPED ${suite} — skipped: ${missing}`);
  warned.add(suite);
  return true;
}

const warned = new Set<string>();
