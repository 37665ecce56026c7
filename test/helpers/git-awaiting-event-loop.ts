import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { FAKE_GIT_PRELUDE } from './fake-git.js';
import { tempDir } from './temp-dir.js';

/**
 * Runs `run` with a `git` first on PATH that, for each call whose arguments begin with `when`, says it is
 * waiting and answers only once the caller's event loop has seen that and let that call go: a git run
 * synchronously blocks the loop, so nothing lets it go, and it gives up after 10 s with "the event loop
 * never ran" (its command fails). Every other call goes straight to the real git. fed finds git on PATH
 * anew whenever PATH changes (src/engine/registry/git.ts).
 */
export async function withGitAwaitingEventLoop<T>(when: readonly string[], run: () => Promise<T>): Promise<T> {
  const path = process.env.PATH ?? '';
  const bin = tempDir();
  const signals = tempDir();
  writeFileSync(
    join(bin, 'git'),
    [
      FAKE_GIT_PRELUDE,
      `case "$CMD" in '${when.join(' ')}'*)`,
      `  : > '${signals}/waiting.'$$; i=0`,
      `  while [ ! -e '${signals}/go.'$$ ]; do i=$((i+1)); if [ $i -gt 1000 ]; then echo 'the event loop never ran' >&2; exit 1; fi; sleep 0.01; done`,
      `  rm -f '${signals}/waiting.'$$; echo $$ >> '${signals}/let-go';;`,
      'esac',
      `PATH='${path}' exec git "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(join(bin, 'git'), 0o755);
  process.env.PATH = `${bin}${delimiter}${path}`;
  // Each waiting call is let go by a timer of the caller's event loop.
  const letGo = setInterval(() => {
    for (const name of readdirSync(signals))
      if (name.startsWith('waiting.')) writeFileSync(join(signals, `go.${name.slice('waiting.'.length)}`), '');
  }, 5);
  try {
    const result = await run();
    if (!existsSync(join(signals, 'let-go'))) throw new Error(`no git ${when.join(' ')} was run`);
    return result;
  } finally {
    clearInterval(letGo);
    process.env.PATH = path;
  }
}
