/**
 * The lines a fake `git` (a script first on PATH) starts with to see which git command fed runs: fed puts
 * its own options before every command (src/engine/registry/git-safety.ts: `--no-pager`, `-c key=value`…),
 * so the command is not `$1`. After these lines `$CMD1` is the command (`worktree`), `$CMD2` its first
 * word (`add`) and `$CMD` all of its words; `"$@"` is left as it came, to pass on to the real git.
 */
export const FAKE_GIT_PRELUDE = [
  '#!/bin/sh',
  'CMD=; CMD1=; CMD2=; skip=',
  'for a in "$@"; do',
  '  if [ -n "$CMD1" ]; then CMD="$CMD $a"; [ -z "$CMD2" ] && CMD2="$a"; continue; fi',
  '  if [ -n "$skip" ]; then skip=; continue; fi',
  '  case "$a" in --no-pager) ;; -c|-C) skip=1;; *) CMD1="$a"; CMD="$a";; esac',
  'done',
].join('\n');
