import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RegistryEntry } from '../../../../core/schema/registry.js';
import { writeFileAtomic } from '../../../../infra/fs/atomic-write.js';
import { gitAsync } from '../../../../engine/registry/git.js';
import { teamGitStorePath } from '../../../../engine/registry/team-git-store.js';

/** What a coding team's agent commits as, as the variables git reads it from. */
export type CommitIdentity = Record<
  'GIT_AUTHOR_NAME' | 'GIT_AUTHOR_EMAIL' | 'GIT_COMMITTER_NAME' | 'GIT_COMMITTER_EMAIL',
  string
>;

/**
 * The identity a sandboxed coding team's agent commits as: yours as git has it in the root (the
 * repository's config, your global one; `GIT_AUTHOR_*`, `GIT_COMMITTER_*` and `EMAIL` as git reads them
 * in your environment), else one naming the team — its home is its own, so git would
 * otherwise refuse to commit. Asked of git once, then kept in the team's store while the config files git
 * reads it from are as they were (a launch waits for it, and a fleet relaunches its teams often); asked
 * again whenever one changed, or one includes another (a change there would not be seen).
 */
export async function commitIdentity(root: string, team: RegistryEntry): Promise<CommitIdentity> {
  const teamId = team.domainId;
  const kept = join(teamGitStorePath(root, team.domain), 'identity.json');
  const stamp = configStamp(root);
  if (stamp) {
    const known = readKept(kept);
    if (known?.stamp === stamp) return identityOf(known.name, known.email);
  }
  // Exit 1 when neither is set: no identity of the user's then.
  const listed = await gitAsync(root, ['config', '--get-regexp', '^user\\.(name|email)$']).catch(() => '');
  const value = (key: string) =>
    listed
      .split('\n')
      .filter((line) => line.startsWith(`${key} `))
      .at(-1)
      ?.slice(key.length + 1) || undefined;
  const name = value('user.name') ?? `fed team ${teamId}`;
  const email = value('user.email') ?? (process.env.EMAIL || `${teamId}@fed.invalid`);
  if (stamp) {
    try {
      writeFileAtomic(kept, JSON.stringify({ stamp, name, email }), { durable: false });
    } catch {
      // No store yet, or no room: asked of git again next time.
    }
  }
  return identityOf(name, email);
}

/** The identity of `name` and `email`, but for what your environment sets of it (git's own order). */
const identityOf = (name: string, email: string): CommitIdentity => {
  const env = process.env;
  return {
    GIT_AUTHOR_NAME: env.GIT_AUTHOR_NAME || name,
    GIT_AUTHOR_EMAIL: env.GIT_AUTHOR_EMAIL || email,
    GIT_COMMITTER_NAME: env.GIT_COMMITTER_NAME || name,
    GIT_COMMITTER_EMAIL: env.GIT_COMMITTER_EMAIL || email,
  };
};

/**
 * The config files git reads an identity from, and the variables that set one, as they are now — or
 * undefined when that cannot be told from them: a root whose repository folder lies elsewhere, or a file
 * that includes another.
 */
function configStamp(root: string): string | undefined {
  const env = process.env;
  const home = env.HOME;
  const xdg = env.XDG_CONFIG_HOME || (home ? join(home, '.config') : undefined);
  const global = env.GIT_CONFIG_GLOBAL;
  const files = [
    env.GIT_CONFIG_NOSYSTEM ? undefined : (env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig'),
    global,
    global === undefined && xdg ? join(xdg, 'git', 'config') : undefined,
    global === undefined && home ? join(home, '.gitconfig') : undefined,
    join(root, '.git', 'config'),
  ].filter((file): file is string => file !== undefined);
  const parts: string[] = [];
  for (const file of files) {
    try {
      const stat = lstatSync(file);
      if (!stat.isFile()) return undefined;
      if (/\[include/i.test(readFileSync(file, 'utf8'))) return undefined;
      parts.push(`${file}:${stat.mtimeMs}:${stat.size}`);
    } catch {
      // The repository's own config must be there: a root whose .git is elsewhere is asked of git.
      if (file === files.at(-1)) return undefined;
      parts.push(`${file}:-`);
    }
  }
  for (const name of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL'])
    parts.push(`${name}=${env[name] ?? ''}`);
  return parts.join('\n');
}

function readKept(file: string): { stamp: string; name: string; email: string } | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    return typeof value.stamp === 'string' && typeof value.name === 'string' && typeof value.email === 'string'
      ? { stamp: value.stamp, name: value.name, email: value.email }
      : undefined;
  } catch {
    return undefined;
  }
}
