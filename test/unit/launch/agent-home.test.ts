import { lstatSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentHomePath,
  prepareAgentHome,
  refuseAgentHome,
} from '../../../src/apps/launch/prepare/sandbox/agent-home.js';
import type { RegistryEntry } from 'fed';
import { AGENT_PRESET_CATALOG, agentConfigSchema, packageRoot } from 'fed/testing';
import { tempDir } from '../../helpers/temp-dir.js';

/** A user's home with a CLI's credentials in it. */
function userHome(): string {
  const home = tempDir();
  mkdirSync(join(home, '.claude'));
  writeFileSync(join(home, '.claude', '.credentials.json'), 'token\n');
  return home;
}

describe("a sandboxed agent's own home (issue 48)", () => {
  const team = { domainId: 'docs', location: '/r/.fed/teams/docs' } as RegistryEntry;

  it("brings in, by default, what each preset's CLI authenticates with — the files the threat model names, each a valid homeFiles entry", () => {
    const files = Object.fromEntries(
      Object.values(AGENT_PRESET_CATALOG).map((preset) => [preset.name, [...preset.homeFiles]]),
    );
    expect(files).toMatchObject({
      claude: ['.claude/.credentials.json'],
      codex: ['.codex/auth.json'],
      gemini: ['.gemini/oauth_creds.json', '.gemini/google_accounts.json', '.gemini/settings.json'],
      copilot: ['.copilot/config.json'],
      opencode: ['.local/share/opencode/auth.json'],
      'fed-agent': [],
      custom: [],
    });
    for (const [name, list] of Object.entries(files))
      expect(agentConfigSchema.shape.homeFiles.safeParse(list).success, name).toBe(true);
  });

  it("is the team's .fed/home, or <agent.home>/<team> (relative to the root)", () => {
    expect(agentHomePath('/r', team, { home: undefined } as never)).toBe('/r/.fed/teams/docs/.fed/home');
    expect(agentHomePath('/r', team, { home: 'homes' } as never)).toBe('/r/homes/docs');
    expect(agentHomePath('/r', team, { home: '/var/lib/agents' } as never)).toBe('/var/lib/agents/docs');
  });

  it('gets a mount point for each file the user has, and none for one the user lacks', () => {
    const user = userHome();
    const home = join(tempDir(), 'home');
    const prepared = prepareAgentHome(home, { HOME: user }, ['.claude/.credentials.json', '.codex/auth.json']);
    expect(prepared.files).toEqual([
      { source: join(user, '.claude', '.credentials.json'), target: join(home, '.claude', '.credentials.json') },
    ]);
    expect(readFileSync(join(home, '.claude', '.credentials.json'), 'utf8')).toBe('');
    // No user home (unset, or /): nothing is brought in.
    expect(prepareAgentHome(home, { HOME: '/' }, ['.claude/.credentials.json']).files).toEqual([]);
  });

  it("takes a file from where the user's variable moved its folder (CODEX_HOME), and points the variable into its own home", () => {
    const user = userHome();
    const codexHome = tempDir();
    writeFileSync(join(codexHome, 'auth.json'), 'key\n');
    const home = join(tempDir(), 'home');
    const prepared = prepareAgentHome(home, { HOME: user, CODEX_HOME: codexHome }, ['.codex/auth.json'], {
      CODEX_HOME: '.codex',
    });
    expect(prepared.files).toEqual([
      { source: join(codexHome, 'auth.json'), target: join(home, '.codex', 'auth.json') },
    ]);
    expect(prepared.env).toMatchObject({
      HOME: home,
      CODEX_HOME: join(home, '.codex'),
      XDG_CONFIG_HOME: join(home, '.config'),
    });
    // The folders the variables name exist: a CLI may refuse a CODEX_HOME that does not.
    for (const folder of ['.codex', '.config', '.local/share', '.local/state', '.cache'])
      expect(lstatSync(join(home, folder)).isDirectory()).toBe(true);
  });

  it('replaces the links an agent left on the way to a mount point, so bwrap never makes one outside the home', () => {
    const user = userHome();
    const home = join(tempDir(), 'home');
    mkdirSync(home);
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(home, '.claude'));
    prepareAgentHome(home, { HOME: user }, ['.claude/.credentials.json']);
    expect(lstatSync(join(home, '.claude')).isDirectory()).toBe(true);
    mkdirSync(join(home, '.codex'));
    symlinkSync(join(user, '.claude', '.credentials.json'), join(home, '.codex', 'auth.json'));
    mkdirSync(join(user, '.codex'));
    writeFileSync(join(user, '.codex', 'auth.json'), 'key\n');
    prepareAgentHome(home, { HOME: user }, ['.codex/auth.json']);
    expect(lstatSync(join(home, '.codex', 'auth.json')).isFile()).toBe(true);
    expect(readFileSync(join(user, '.claude', '.credentials.json'), 'utf8')).toBe('token\n');
  });

  it("configured, is never the user's home, a folder holding it or one inside it — the message says which; a link as the home is refused", () => {
    const base = tempDir();
    const user = join(base, 'users', 'ann');
    mkdirSync(join(user, '.claude'), { recursive: true });
    writeFileSync(join(user, '.claude', '.credentials.json'), 'token\n');
    const root = tempDir();
    const refusal = (home: string, teamId: string) => {
      try {
        refuseAgentHome(
          root,
          { domainId: teamId, location: join(root, '.fed/teams', teamId) } as RegistryEntry,
          {
            home,
          } as never,
          { HOME: user },
        );
      } catch (error) {
        expect(error).toMatchObject({ code: 'AGENT_HOME' });
        return (error as Error).message;
      }
      return undefined;
    };
    expect(refusal(join(base, 'users'), 'ann')).toContain(`at ${user}, which is the user's home (${user})`);
    expect(refusal(user, 'docs')).toContain(`at ${join(user, 'docs')}, which lies inside the user's home (${user})`);
    expect(refusal(base, 'users')).toContain(`at ${join(base, 'users')}, which holds the user's home (${user})`);
    expect(refusal(user, 'docs')).toContain("the sandbox keeps the user's home read-only");
    // Without HOME (a service, cron): the account's home, from the user database, is the user's home.
    const account = userInfo().homedir;
    expect(() =>
      refuseAgentHome(
        root,
        { domainId: 'docs', location: join(root, '.fed/teams/docs') } as RegistryEntry,
        {
          home: join(account, 'fed-homes'),
        } as never,
        {},
      ),
    ).toThrow(`which lies inside the user's home (${realpathSync(account)})`);
    // The default home lies in the team's workspace, its own already: fine in a federation under the user's home.
    const inHome = join(user, 'project');
    mkdirSync(inHome);
    const docs = { domainId: 'docs', location: join(inHome, '.fed/teams/docs') } as RegistryEntry;
    expect(() => refuseAgentHome(inHome, docs, { home: undefined } as never, { HOME: user })).not.toThrow();
    const home = agentHomePath(inHome, docs, { home: undefined } as never);
    expect(prepareAgentHome(home, { HOME: user }, ['.claude/.credentials.json']).home).toBe(home);
    const link = join(tempDir(), 'home');
    symlinkSync(tempDir(), link);
    expect(() => prepareAgentHome(link, { HOME: user }, [])).toThrow(
      expect.objectContaining({ code: 'AGENT_HOME', message: expect.stringContaining('is not a folder') }),
    );
  });

  it("configured, is never the filesystem root, a folder holding others, a system folder, nor in the root or fed's installation", () => {
    const root = tempDir();
    const refused = (home: string, teamId = 'docs') => {
      try {
        refuseAgentHome(
          root,
          { domainId: teamId, location: join(root, '.fed/teams', teamId) } as RegistryEntry,
          { home } as never,
          {},
        );
      } catch (error) {
        expect(error).toMatchObject({ code: 'AGENT_HOME' });
        return (error as Error).message;
      }
      return undefined;
    };
    expect(refused('/')).toContain('at /docs, directly in the filesystem root');
    expect(refused('/var')).toContain("directly in /var, which holds others' folders");
    expect(refused('/home', 'alice')).toContain("directly in /home, which holds others' folders");
    expect(refused('/usr/local', 'bin')).toContain("inside the system's /usr, which the sandbox keeps read-only");
    expect(refused('/etc')).toContain("inside the system's /etc");
    expect(refused('.')).toContain(`which lies inside the federation root (${root})`);
    expect(refused('src/..')).toContain(`which lies inside the federation root (${root})`);
    expect(refused(join(packageRoot(), 'node_modules'))).toContain("which lies inside fed's installation");
    expect(refused(join(packageRoot(), '..'), basename(packageRoot()))).toContain("which is fed's installation");
    // The kernel's filesystems, as written or through a link, refused before anything touches them.
    for (const home of ['/proc', '/proc/self', '/sys', '/dev/shm'])
      expect(refused(home)).toMatch(/inside \/(proc|sys|dev), a filesystem of the kernel's/);
    const link = join(tempDir(), 'homes');
    symlinkSync('/proc', link);
    expect(refused(link)).toContain(`at ${join(link, 'docs')}, inside /proc, a filesystem of the kernel's`);
    // No folder there, nor one to be made: a file as agent.home, a link or file left as the home, a link to nothing.
    const outside = tempDir();
    writeFileSync(join(outside, 'file'), '');
    expect(refused(join(outside, 'file'))).toContain(
      `at ${join(outside, 'file', 'docs')}, but ${join(outside, 'file')} is a file, so no folder can be made there`,
    );
    symlinkSync(tempDir(), join(outside, 'docs'));
    expect(refused(outside)).toContain(`at ${join(outside, 'docs')}, which is a link, not a folder: remove it`);
    symlinkSync(join(outside, 'nothing'), join(outside, 'dangling'));
    expect(refused(join(outside, 'dangling'))).toContain(`but ${join(outside, 'dangling')} is a link to no folder`);
    symlinkSync(tempDir(), join(outside, 'linked'));
    expect(refused(join(outside, 'linked'))).toBeUndefined();
    // Outside all of them: a folder of its own, or the default (the team's own workspace).
    expect(refused(tempDir())).toBeUndefined();
    expect(refused(join(root, '..', 'agent-homes'))).toBeUndefined();
    expect(() => refuseAgentHome(root, team, { home: undefined } as never, {})).not.toThrow();
  });
});
