import { homedir } from 'node:os';
import { join } from 'node:path';
import { readFileTail } from '../../../infra/fs/read-json-file.js';
import type { StreamVerdict } from './agent-preset.js';
import { classifyError } from './classify-error.js';

/** Only the log's end is read: OpenCode appends every run of the CLI to one file. */
const TAIL_BYTES = 64 * 1024;

/**
 * OpenCode's own log (`opencode.log` in `$XDG_DATA_HOME/opencode/log`, by default under
 * `~/.local/share`): lines of `key=value` fields, one run of the CLI after another. A rate limit it waits
 * out (the provider's `retry-after`, however long) shows there alone, as a `stream error` of the main agent
 * (`small=false`; the title agent's are its own), with nothing on stdout:
 *
 *   timestamp=… level=ERROR run=… message="stream error" … session.id=ses_… small=false … error.error="AI_APICallError: Number of requests has exceeded your rate limit"
 *
 * The wait, when the log has such a line since `since` (of the session, when it is known): `rate-limited`.
 */
export function opencodeRateLimitWait(
  env: NodeJS.ProcessEnv,
  since: Date,
  sessionId: string | null,
): StreamVerdict | undefined {
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  const log = join(dataHome, 'opencode', 'log', 'opencode.log');
  let tail: string;
  try {
    tail = readFileTail(log, TAIL_BYTES, 'OpenCode writes its log there')?.tail.toString('utf8') ?? '';
  } catch {
    // No log (yet), or one fed cannot read: nothing says what the CLI waits on.
    return undefined;
  }
  const waits = tail
    .split('\n')
    .filter((line) => line.includes('message="stream error"') && /\bsmall=false\b/.test(line))
    .filter((line) => (sessionId === null ? true : line.includes(`session.id=${sessionId} `)))
    .filter((line) => Date.parse(/^timestamp=(\S+)/.exec(line)?.[1] ?? '') >= since.getTime())
    .map((line) => /\berror\.error="((?:[^"\\]|\\.)*)"/.exec(line)?.[1] ?? '')
    .filter((error) => classifyError(error).outcome === 'rate-limited');
  const error = waits.at(-1);
  if (error === undefined) return undefined;
  return { outcome: 'rate-limited', message: `OpenCode waits out a rate limit in silence: ${error}` };
}
