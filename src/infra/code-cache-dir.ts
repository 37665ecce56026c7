import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where fed keeps its V8 code cache (src/cli/code-cache.ts): `$FED_CODE_CACHE` (a directory), else
 * `$XDG_CACHE_HOME/fed`, else a per-user folder in the system temp directory; undefined when
 * `FED_CODE_CACHE=off`. Also read by the sandbox, which mounts this folder read-only: a cache file is
 * compiled code that every later `fed` outside the sandbox would run.
 */
export function codeCacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const setting = env.FED_CODE_CACHE;
  if (setting === 'off') return undefined;
  return (
    setting ||
    (env.XDG_CACHE_HOME
      ? join(env.XDG_CACHE_HOME, 'fed')
      : join(tmpdir(), `fed-code-cache-${process.getuid?.() ?? 'user'}`))
  );
}
