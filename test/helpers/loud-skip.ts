/**
 * Suites that need a system program (nats-server, chromium) skip without it, and say so loudly, naming
 * the suite and what is missing; with `CI` set they never skip — they run and fail (.ci/run installs the
 * programs), so CI never passes by skipping them.
 */
export function skipLoudlyWithout(
  suite: string,
  missing: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  warn: (line: string) => void = console.warn,
): boolean {
  if (missing === undefined || env.CI) return false;
  warn(`SKIPPED ${suite} — skipped: ${missing}`);
  return true;
}
