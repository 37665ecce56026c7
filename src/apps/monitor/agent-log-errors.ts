import { lastLaunchStderr } from '../launch/judge/agent-log-tail.js';

/**
 * Errors an agent logged during its last launch (docs/design/spec.md §6 "no errors in logs"): the lines it
 * wrote that look like an error report — an `Error:`/`Exception:` with a type name, a line that starts
 * with error/fatal/panic, or a Python traceback. What Node itself wrote is not the agent's (lastLaunchStderr).
 */
const ERROR_LINE =
  /(?:\b[A-Z]\w*(?:Error|Exception)\b:)|^\s*(?:error|fatal|panic)\b|^Traceback \(most recent call last\)/i;

export function agentLogErrors(file: string, max = 3): string[] {
  return lastLaunchStderr(file)
    .filter((line) => ERROR_LINE.test(line))
    .slice(0, max)
    .map((line) => line.trim().slice(0, 200));
}
