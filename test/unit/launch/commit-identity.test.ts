import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RegistryEntry } from 'fed';
import { commitIdentity } from '../../../src/apps/launch/prepare/sandbox/commit-identity.js';
import { tempDir } from '../../helpers/temp-dir.js';

/** A repository at a fresh root, with its team `app`'s store folder, and git's global config out of the way. */
function repository(): { root: string; team: RegistryEntry; config: (...args: string[]) => void } {
  const root = tempDir('fed-identity-');
  execFileSync('git', ['init', '-q', root]);
  mkdirSync(join(root, '.fed', 'git', 'app'), { recursive: true });
  vi.stubEnv('HOME', tempDir('fed-identity-home-'));
  vi.stubEnv('XDG_CONFIG_HOME', '');
  vi.stubEnv('GIT_CONFIG_NOSYSTEM', '1');
  for (const name of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL'])
    vi.stubEnv(name, '');
  const team = { domain: 'app', domainId: 'app' } as RegistryEntry;
  return { root, team, config: (...args) => execFileSync('git', ['-C', root, 'config', ...args]) };
}

afterEach(() => void vi.unstubAllEnvs());

describe("the identity a sandboxed coding team's agent commits as", () => {
  it('yours as git has it in the root, asked again once the config changed; else one naming the team', async () => {
    const { root, team, config } = repository();
    expect(await commitIdentity(root, team)).toEqual({
      GIT_AUTHOR_NAME: 'fed team app',
      GIT_AUTHOR_EMAIL: 'app@fed.invalid',
      GIT_COMMITTER_NAME: 'fed team app',
      GIT_COMMITTER_EMAIL: 'app@fed.invalid',
    });
    config('user.name', 'Ada');
    config('user.email', 'ada@example.com');
    expect(await commitIdentity(root, team)).toMatchObject({
      GIT_AUTHOR_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    });
  });

  it('what your environment sets of it, as git would take it: GIT_AUTHOR_*, GIT_COMMITTER_*, EMAIL', async () => {
    const { root, team, config } = repository();
    config('user.name', 'Ada');
    vi.stubEnv('EMAIL', 'ada@env.example');
    vi.stubEnv('GIT_COMMITTER_NAME', 'The Bot');
    // Asked twice: the second from what the store keeps.
    for (let i = 0; i < 2; i++)
      expect(await commitIdentity(root, team)).toEqual({
        GIT_AUTHOR_NAME: 'Ada',
        GIT_AUTHOR_EMAIL: 'ada@env.example',
        GIT_COMMITTER_NAME: 'The Bot',
        GIT_COMMITTER_EMAIL: 'ada@env.example',
      });
  });
});
