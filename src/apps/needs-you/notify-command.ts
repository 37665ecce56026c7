import { splitCommand } from '../../core/split-command.js';
import { runCaptured } from '../../infra/process/run-captured.js';
import { DEFAULT_NOTIFY_TIMEOUT_SECONDS, type FederationConfig } from '../../core/schema/config.js';
import type { NeedsYouItem } from '../../core/schema/needs-you.js';
import type { Federation } from '../../engine/context.js';

/**
 * Tell `notify.command` about one item: run from its argument array (never a shell) in the federation root,
 * the item as JSON on stdin and named in FED_* variables, killed with everything it started after
 * `notify.timeoutSeconds`. Throws what went wrong (the caller makes it a warning); exit 0 means told.
 */
export async function runNotifyCommand(
  fed: Federation,
  notify: NonNullable<FederationConfig['notify']>,
  item: NeedsYouItem,
  signal?: AbortSignal,
): Promise<void> {
  const command = splitCommand(notify.command, 'notify.command');
  const timeoutSeconds = notify.timeoutSeconds ?? DEFAULT_NOTIFY_TIMEOUT_SECONDS;
  const run = await runCaptured(command, {
    cwd: fed.root,
    env: {
      ...fed.env,
      FED_ROOT: fed.root,
      FED_NOTIFY_ID: item.id,
      FED_NOTIFY_KIND: item.kind,
      FED_NOTIFY_TEAM: item.team ?? '',
    },
    input: `${JSON.stringify(item)}\n`,
    timeoutMs: timeoutSeconds * 1000,
    signal,
    ownGroup: true,
    maxStdoutBytes: 64 * 1024,
  });
  const said = run.stderr.trim() ? `: ${run.stderr.trim().split('\n').slice(-3).join(' | ')}` : '';
  if (run.error) throw new Error(`notify.command could not start ${command[0]}: ${run.error.message}`);
  if (run.stopped === 'timeout')
    throw new Error(`notify.command did not finish within ${timeoutSeconds} s and was stopped (notify.timeoutSeconds)`);
  if (run.stopped === 'interrupted') throw new Error('notify.command was interrupted');
  if (run.code !== 0)
    throw new Error(
      `notify.command exited with ${run.code === null ? `signal ${run.signal}` : `code ${run.code}`}${said}`,
    );
}
