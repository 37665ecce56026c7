import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onboardTeam, openFederation } from 'fed';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';

async function initialised(): Promise<string> {
  const root = tempDir();
  const result = await runFed(['init', '--name', 'acme'], { cwd: root });
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return root;
}

const json = <T>(text: string): T => JSON.parse(text) as T;

describe('fed CLI basics', () => {
  it('--help, <cmd> --help and --version exit 0', async () => {
    const help = await runFed(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: fed');
    expect(help.stdout).toMatch(/--root <dir>/);
    const teamHelp = await runFed(['team', 'onboard', '--help']);
    expect(teamHelp.code).toBe(0);
    expect(teamHelp.stdout).toContain('--placement <type>');
    const version = await runFed(['--version']);
    expect(version).toMatchObject({
      code: 0,
      stdout: `${json<{ version: string }>(readFileSync('package.json', 'utf8')).version}\n`,
    });
  });

  it('an unknown command or option exits 2 with a suggestion', async () => {
    const unknown = await runFed(['tem', 'list']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Did you mean team?');
    const badOption = await runFed(['team', 'list', '--jsn']);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain('--json');
  });

  it('a command outside any federation exits 2 and says to run fed init', async () => {
    const result = await runFed(['team', 'list'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no federation found in .* run fed init/);
  });
});

describe('fed init', () => {
  it('creates config, meta boxes, skills and an empty registry; re-running is a no-op', async () => {
    const root = await initialised();
    expect(json(readFileSync(join(root, 'federate.config.json'), 'utf8'))).toEqual({ federationName: 'acme' });
    expect(json(readFileSync(join(root, '.fed', 'team-registry.json'), 'utf8'))).toMatchObject({
      lockVersion: 0,
      teams: [],
    });
    for (const dir of ['.fed/signals/inbox', '.fed/signals/outbox', '.fed/skills'])
      expect(existsSync(join(root, dir))).toBe(true);
    expect(readdirSync(join(root, '.fed', 'skills')).sort()).toEqual([
      'diagram-tools.md',
      'documentation-standards.md',
      'domain-playbook.md',
      'report-templates.md',
    ]);
    const again = await runFed(['init', '--json'], { cwd: root });
    expect(again.code).toBe(0);
    expect(json(again.stdout)).toEqual({ root, created: [] });
  });

  it('never overwrites an existing config', async () => {
    const root = await initialised();
    const again = await runFed(['init', '--name', 'other'], { cwd: root });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already exists and was left unchanged');
    expect(json(readFileSync(join(root, 'federate.config.json'), 'utf8'))).toEqual({ federationName: 'acme' });
  });

  it('refuses an invalid --name and writes nothing', async () => {
    const root = tempDir();
    const result = await runFed(['init', '--name', ''], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('fed: --name: expected a non-empty string, got an empty string');
    expect(readdirSync(root)).toEqual([]);
  });

  it('reports a broken existing config (exit 2) and creates nothing', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'federate.config.json'), '{"telemetry": {"enabled": "yes"}}');
    const result = await runFed(['init'], { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('telemetry.enabled: expected true or false, got "yes"');
    expect(readdirSync(root)).toEqual(['federate.config.json']);
  });

  it.skipIf(skipWithoutBubblewrap('fed init on a read-only mount'))(
    're-run on a read-only mount exits 2 naming the folder and what to do, and writes nothing',
    async () => {
      const root = await initialised();
      const before = readdirSync(root).sort();
      const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        // The root bound read-only, as a read-only mount (EROFS, for root too): everything else as it is.
        const env = { ...process.env, FED_TELEMETRY_ENABLED: 'false', NO_COLOR: '1' };
        const child = spawn(
          'bwrap',
          ['--dev-bind', '/', '/', '--ro-bind', root, root, process.execPath, FED_BIN, '--root', root, 'init'],
          { env, stdio: ['ignore', 'ignore', 'pipe'] },
        );
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`fed init cannot write to ${root}: it is on a read-only filesystem [EROFS]`);
      expect(result.stderr).toContain('remount it read-write');
      expect(readdirSync(root).sort()).toEqual(before);
    },
  );

  it('--root creates the folder it names', async () => {
    const base = tempDir();
    const result = await runFed(['--root', 'nested/fed', 'init'], { cwd: base });
    expect(result.code).toBe(0);
    expect(existsSync(join(base, 'nested', 'fed', '.fed', 'team-registry.json'))).toBe(true);
  });
});

describe('fed team', () => {
  it('onboards, lists and shows teams (text and --json)', async () => {
    const root = await initialised();
    const onboard = await runFed(['team', 'onboard', 'docs', '--json'], { cwd: root });
    expect(onboard.code).toBe(0);
    expect(json(onboard.stdout)).toMatchObject({
      domain: 'docs',
      archetypeId: 'deliverable',
      placementType: 'directory',
      status: 'active',
    });
    expect((await runFed(['team', 'onboard', 'api', '--archetype', 'coding'], { cwd: root })).code).toBe(0);

    const list = await runFed(['team', 'list'], { cwd: root });
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+DOMAIN\s+ARCHETYPE\s+PLACEMENT\s+STATUS/);
    expect(list.stdout).toMatch(/^api\s+api\s+coding\s+directory\s+active/m);
    const listJson = json<{ domainId: string }[]>((await runFed(['team', 'list', '--json'], { cwd: root })).stdout);
    expect(listJson.map((t) => t.domainId)).toEqual(['docs', 'api']);

    const show = await runFed(['team', 'show', 'api'], { cwd: root });
    expect(show.stdout).toMatch(/^archetype:\s+coding$/m);
  });

  it.each([
    [['team', 'onboard', '../evil'], /domain: expected a slug/],
    [['team', 'onboard', 'has space'], /domain: expected a slug/],
    [['team', 'onboard', 'meta'], /reserved for the meta coordinator/],
    [['team', 'onboard', 'ok', '--id', 'Bad_Id'], /--id: expected a slug/],
    [
      ['team', 'onboard', 'ok', '--archetype', 'delivrable'],
      /--archetype: "delivrable" is none of fed's archetypes \(deliverable, coding, consultant\) — did you mean "deliverable"\?/,
    ],
    [
      ['team', 'onboard', 'ok', '--placement', 'cloud'],
      /argument 'cloud' is invalid. Allowed choices are directory, worktree/,
    ],
    [['team', 'onboard'], /missing required argument 'domain'/],
    [['team', 'show', 'nobody'], /unknown team "nobody" \(no team is registered yet\)/],
    [['team', 'pause', 'nobody'], /unknown team "nobody"/],
  ])('bad input %j exits 2 with a clear message and changes nothing', async (args, message) => {
    const root = await initialised();
    const registryBefore = readFileSync(join(root, '.fed', 'team-registry.json'), 'utf8');
    const result = await runFed(args, { cwd: root });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(readFileSync(join(root, '.fed', 'team-registry.json'), 'utf8')).toBe(registryBefore);
    expect(existsSync(join(root, '.fed', 'teams'))).toBe(false);
  });

  it('a duplicate onboarding exits 2 and creates nothing', async () => {
    const root = await initialised();
    await runFed(['team', 'onboard', 'docs'], { cwd: root });
    const again = await runFed(['team', 'onboard', 'docs'], { cwd: root });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('a team named "docs" (id "docs") is already registered');
  });

  it('pause, resume and archive follow the status machine; illegal moves exit 2 with the allowed commands', async () => {
    const root = await initialised();
    await runFed(['team', 'onboard', 'docs'], { cwd: root });
    expect((await runFed(['team', 'pause', 'docs'], { cwd: root })).stdout).toBe('docs: active → paused\n');
    const pauseAgain = await runFed(['team', 'pause', 'docs'], { cwd: root });
    expect(pauseAgain.code).toBe(2);
    expect(pauseAgain.stderr).toContain(
      'cannot pause team "docs": it is paused; allowed: fed team resume docs, fed team archive docs',
    );
    expect(json((await runFed(['team', 'resume', 'docs', '--json'], { cwd: root })).stdout)).toEqual({
      team: 'docs',
      from: 'paused',
      to: 'active',
    });
    expect((await runFed(['team', 'archive', 'docs'], { cwd: root })).code).toBe(0);
    const resume = await runFed(['team', 'resume', 'docs'], { cwd: root });
    expect(resume.code).toBe(2);
    expect(resume.stderr).toContain('archived is final, no command changes it');
  });

  it('inside a team workspace, commands act on the owning federation and know the team', async () => {
    const root = await initialised();
    await runFed(['team', 'onboard', 'docs'], { cwd: root });
    const inside = join(root, '.fed', 'teams', 'docs', 'notes');
    mkdirSync(inside);
    // A stray registry in the workspace (e.g. a committed copy) must not be mistaken for the federation.
    writeFileSync(join(root, '.fed', 'teams', 'docs', '.fed', 'team-registry.json'), '{"lockVersion": 0}');
    const show = await runFed(['team', 'show', '--json'], { cwd: inside });
    expect(show, show.stderr).toMatchObject({ code: 0 });
    expect(json(show.stdout)).toMatchObject({ domainId: 'docs', location: join(root, '.fed', 'teams', 'docs') });
  });

  it('root resolution: --root beats FED_ROOT beats the working directory', async () => {
    const a = await initialised();
    const b = await initialised();
    await runFed(['team', 'onboard', 'only-in-b'], { cwd: b });
    const viaEnv = await runFed(['team', 'list', '--json'], { cwd: a, env: { FED_ROOT: b } });
    expect(json<{ domainId: string }[]>(viaEnv.stdout).map((t) => t.domainId)).toEqual(['only-in-b']);
    const viaFlag = await runFed(['--root', a, 'team', 'list', '--json'], { cwd: b, env: { FED_ROOT: b } });
    expect(json(viaFlag.stdout)).toEqual([]);
  });

  it('--root or FED_ROOT naming a file, or a path through one, exits 2 saying so; fed init there writes nothing', async () => {
    const base = tempDir();
    const file = join(base, 'notes.txt');
    writeFileSync(file, 'mine\n');
    for (const [root, problem] of [
      [file, `${file} names a file`],
      [join(file, 'fed'), `${join(file, 'fed')}: ${file} is a file`],
    ] as const) {
      // Never "run: fed init --root <file>", nor init's "move that file aside": the file is the user's.
      for (const args of [
        ['--root', root, 'team', 'list'],
        ['--root', root, 'init'],
        ['doctor', '--root', root],
      ]) {
        const result = await runFed(args, { cwd: base });
        expect(result, args.join(' ')).toMatchObject({ code: 2, stdout: '' });
        expect(result.stderr).toBe(`fed: --root ${problem}, not a folder; give the federation's folder\n`);
      }
      for (const args of [['team', 'list'], ['init']]) {
        const result = await runFed(args, { cwd: base, env: { FED_ROOT: root } });
        expect(result, args.join(' ')).toMatchObject({ code: 2, stdout: '' });
        expect(result.stderr).toBe(`fed: FED_ROOT ${problem}, not a folder; give the federation's folder\n`);
      }
    }
    expect(readdirSync(base)).toEqual(['notes.txt']);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('an empty --root exits 2 and acts on no federation; an empty FED_ROOT counts as unset', async () => {
    const root = await initialised();
    const before = readdirSync(root).sort();
    for (const args of [
      ['--root', '', 'team', 'list'],
      ['--root=', 'team', 'list'],
      ['--root', '', 'init'],
    ]) {
      const result = await runFed(args, { cwd: root });
      expect(result, args.join(' ')).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toBe("fed: --root: empty; give the federation's folder\n");
    }
    expect(readdirSync(root).sort()).toEqual(before);
    // `FED_ROOT= fed …` is how a shell clears a variable for one command: the federation here is found.
    const unset = await runFed(['team', 'list', '--json'], { cwd: root, env: { FED_ROOT: '' } });
    expect(unset, unset.stderr).toMatchObject({ code: 0, stdout: '[]\n' });
  });

  it('an empty path given to any path option or argument exits 2 and writes nothing, never read as "not given"', async () => {
    const root = await initialised();
    const before = readdirSync(root).sort();
    // Each had a default it fell back to when given '' (printing instead of writing, a temp federation, no
    // log) or read the current folder as the path.
    for (const [args, what] of [
      [['machines', 'export', '--out', ''], "option '--out <dir>'"],
      [['demo', '--dir', ''], "option '--dir <dir>'"],
      [['actors', 'run', '--once', '--inspect-log', ''], "option '--inspect-log <file>'"],
      [['run', '--inspect-log', ''], "option '--inspect-log <file>'"],
      [['launch', '--team', 'docs', '--inspect-log', ''], "option '--inspect-log <file>'"],
      [
        ['signal', 'send', '--to', 'meta', '--type', 'report', '--subject', 's', '--body-file', ''],
        "option '--body-file <path>'",
      ],
      [['deliverable', 'check', ''], "argument 'file'"],
      [['deliverable', 'check', 'x.md', '--schema', ''], "option '--schema <file>'"],
    ] as const) {
      const result = await runFed(args, { cwd: root });
      expect(result, args.join(' ')).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr, args.join(' ')).toContain(`${what}`);
      expect(result.stderr, args.join(' ')).toMatch(/expected a (file|folder), got an empty path/);
    }
    expect(readdirSync(root).sort()).toEqual(before);
  });
});

describe('worktree placement', () => {
  function gitRepo(): string {
    const root = tempDir();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'fed@test');
    git('config', 'user.name', 'fed test');
    writeFileSync(join(root, 'README.md'), '# repo\n');
    return root;
  }

  it('refuses outside a git repository or without a commit, and creates nothing', async () => {
    const plain = await initialised();
    const outside = await runFed(['team', 'onboard', 'docs', '--placement', 'worktree'], { cwd: plain });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('needs a git repository');

    const repo = gitRepo();
    await runFed(['init'], { cwd: repo });
    const noCommit = await runFed(['team', 'onboard', 'docs', '--placement', 'worktree'], { cwd: repo });
    expect(noCommit.code).toBe(2);
    expect(noCommit.stderr).toContain('needs at least one commit');
    expect(existsSync(join(repo, '.fed', 'worktrees', 'docs'))).toBe(false);
  });

  it('adds a worktree on branch fed/<domain>, keeps git status clean, and resolves the federation from inside it', async () => {
    const repo = gitRepo();
    await runFed(['init', '--name', 'acme'], { cwd: repo });
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['commit', '-qm', 'init federation'], { cwd: repo });

    const onboard = await runFed(['team', 'onboard', 'docs', '--placement', 'worktree', '--json'], { cwd: repo });
    expect(onboard, onboard.stderr).toMatchObject({ code: 0 });
    const location = join(repo, '.fed', 'worktrees', 'docs');
    expect(json(onboard.stdout)).toMatchObject({ placementType: 'worktree', location });
    expect(execFileSync('git', ['branch', '--list', 'fed/docs'], { cwd: repo, encoding: 'utf8' })).toContain(
      'fed/docs',
    );
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe('');

    // The worktree carries the committed federate.config.json; the marker still leads to the real federation.
    expect(existsSync(join(location, 'federate.config.json'))).toBe(true);
    const show = await runFed(['team', 'show', '--json'], { cwd: location });
    expect(show, show.stderr).toMatchObject({ code: 0 });
    expect(json(show.stdout)).toMatchObject({ domainId: 'docs' });
    const list = await runFed(['team', 'list', '--json'], { cwd: location });
    expect(json<unknown[]>(list.stdout)).toHaveLength(1);
  });

  it('removes the worktree and branch again when registration fails', async () => {
    const repo = gitRepo();
    await runFed(['init'], { cwd: repo });
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['commit', '-qm', 'init'], { cwd: repo });
    // A live writer on another host holds the commit lock, so this registration times out.
    writeFileSync(
      join(repo, '.fed', 'team-registry.json.lock'),
      JSON.stringify({ pid: 1, host: 'elsewhere', token: 'x', acquiredAt: new Date().toISOString() }),
    );
    const failed = await onboardTeam(
      openFederation(repo),
      { domain: 'docs', placementType: 'worktree' },
      { lock: { timeoutMs: 50, staleMs: 60_000 } },
    ).catch((e: unknown) => e);
    expect(failed).toMatchObject({ code: 'LOCK_TIMEOUT' });
    expect(existsSync(join(repo, '.fed', 'worktrees', 'docs'))).toBe(false);
    expect(execFileSync('git', ['branch', '--list', 'fed/docs'], { cwd: repo, encoding: 'utf8' })).toBe('');
    expect(execFileSync('git', ['worktree', 'list'], { cwd: repo, encoding: 'utf8' }).trim().split('\n')).toHaveLength(
      1,
    );
  });
});

describe('output to a closed pipe', () => {
  it('a reader that goes away (`fed team list | head -0`) ends the command quietly', async () => {
    const root = await initialised();
    const child = spawn(process.execPath, [FED_BIN, '--root', root, 'team', 'list', '--json'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('run from a folder removed meanwhile: said as fed says a refusal (exit 2), no stack trace; --version still works', () => {
    const gone = join(tempDir(), 'gone');
    mkdirSync(gone);
    const inGone = (...args: string[]) => {
      const script = `cd "$1" && rmdir "$1" && shift && exec "$@"`;
      try {
        return {
          code: 0,
          stderr: '',
          stdout: execFileSync('sh', ['-c', script, 'sh', gone, process.execPath, FED_BIN, ...args], {
            encoding: 'utf8',
            stdio: 'pipe',
          }),
        };
      } catch (error) {
        const { status, stderr } = error as { status: number; stderr: string };
        return { code: status, stderr };
      }
    };
    const list = inGone('team', 'list');
    expect(list.code).toBe(2);
    expect(list.stderr).toBe(
      'fed: the current folder no longer exists (removed or moved since this shell entered it); cd to a folder that exists and run the command again\n',
    );
    mkdirSync(gone);
    expect(inGone('--version').code).toBe(0);
  });
});
