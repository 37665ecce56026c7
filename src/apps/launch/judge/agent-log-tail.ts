import { existsSync } from 'node:fs';
import { readFileTail } from '../../../infra/fs/read-json-file.js';
import { AGENT_LOG_HEADER_PREFIX } from '../../../core/schema/agent-log.js';

/** Only the log's end is read: a long-lived team's log grows launch after launch. */
const TAIL_BYTES = 256 * 1024;

/**
 * What Node itself writes to an agent's stderr, which is not the agent speaking: its process warnings
 * (`(node:1234) Warning: …`, `(node:1234) [DEP0040] DeprecationWarning: …`, whose text may name an error
 * type) and V8's complaint about a flag its line lacks (`Error: unrecognized flag --x`, then `Try --help
 * for options`), which a Node script's `v8.setFlagsFromString` gets on another Node than the one it was
 * written for.
 */
const RUNTIME_LINE = /^\(node:\d+\) |^Error: unrecognized flag --|^Try --help for options$/;

/**
 * The lines the agent wrote to stderr during its last launch (the agent log, `.fed/logs/agent.log`,
 * after the last launch's header block), without Node's own; none for a team never launched.
 */
export function lastLaunchStderr(file: string): string[] {
  // A team never launched has no log: asked without the exception a failed open throws.
  if (!existsSync(file)) return [];
  const read = readFileTail(file, TAIL_BYTES, 'fed launch writes the agent log there; move it aside');
  if (!read) return [];
  const text = read.tail.toString('utf8');
  const header = text.lastIndexOf(AGENT_LOG_HEADER_PREFIX);
  // The header block (the launch, its command, cwd, preset, transcript, sandbox) ends with an empty line;
  // a log of an earlier release has the header line alone.
  const blockEnd = header === -1 ? -1 : text.indexOf('\n\n', header);
  const since =
    header === -1 ? text : text.slice(blockEnd !== -1 ? blockEnd + 2 : text.indexOf('\n', header) + 1 || text.length);
  return since.split('\n').filter((line) => line.trim() !== '' && !RUNTIME_LINE.test(line));
}
