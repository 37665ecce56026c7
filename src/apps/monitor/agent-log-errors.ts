import { existsSync } from 'node:fs';
import { readFileTail } from '../../infra/fs/read-json-file.js';
import { AGENT_LOG_HEADER_PREFIX } from '../../core/schema/agent-log.js';

/**
 * Errors an agent logged during its last launch (docs/design/spec.md §6 "no errors in logs"): the lines after the last
 * launch header that look like an error report — an `Error:`/`Exception:` with a type name, a line that
 * starts with error/fatal/panic, or a Python traceback. Only the log's tail is read.
 */
const ERROR_LINE =
  /(?:\b[A-Z]\w*(?:Error|Exception)\b:)|^\s*(?:error|fatal|panic)\b|^Traceback \(most recent call last\)/i;
/**
 * What Node itself writes to an agent's stderr, which is not the agent failing: its process warnings
 * (`(node:1234) Warning: …`, `(node:1234) [DEP0040] DeprecationWarning: …`, whose text may name an error
 * type) and V8's complaint about a flag its line lacks (`Error: unrecognized flag --x`, then `Try --help
 * for options`), which a Node script's `v8.setFlagsFromString` gets on another Node than the one it was
 * written for.
 */
const NODE_OWN_LINE = /^\(node:\d+\) |^Error: unrecognized flag --|^Try --help for options$/;
const TAIL_BYTES = 256 * 1024;

export function agentLogErrors(file: string, max = 3): string[] {
  // A team never launched has no log: asked without the exception a failed open throws.
  if (!existsSync(file)) return [];
  const read = readFileTail(file, TAIL_BYTES, 'fed launch writes the agent log there; move it aside');
  if (!read) return [];
  const text = read.tail.toString('utf8');
  const lastLaunch = text.lastIndexOf(AGENT_LOG_HEADER_PREFIX);
  const since = lastLaunch === -1 ? text : text.slice(lastLaunch);
  return since
    .split('\n')
    .filter((line) => ERROR_LINE.test(line) && !NODE_OWN_LINE.test(line))
    .slice(0, max)
    .map((line) => line.trim().slice(0, 200));
}
