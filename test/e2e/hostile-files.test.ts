import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  ftruncateSync,
  utimesSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed, type FedResult } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The hostile-file corpus: things a user, a tool or an agent can leave where fed expects one of its files.
 * Every command that meets one ends in bounded time with a message naming the file — no hang (each run
 * is killed after 30 s, which fails the test), no stack trace — and the other teams keep working.
 */
const HOSTILE_ENTRIES: Record<string, (path: string) => void> = {
  'a FIFO': (path) => execFileSync('mkfifo', [path]),
  'a directory': (path) => mkdirSync(path),
  'a symlink to /dev/null': (path) => symlinkSync('/dev/null', path),
  'a 2 GiB sparse file': (path) => {
    const fd = openSync(path, 'w');
    ftruncateSync(fd, 2 * 1024 ** 3);
    closeSync(fd);
  },
  'deeply nested JSON': (path) => writeFileSync(path, '['.repeat(200_000) + ']'.repeat(200_000)),
  garbage: (path) => writeFileSync(path, '\u0000\u0001garbage{'),
};

interface Federation {
  root: string;
  fed: (...args: string[]) => Promise<FedResult>;
  workspace: (team: string) => string;
}

async function federation(): Promise<Federation> {
  const root = tempDir();
  const fed = (...args: string[]) => runFed(['--root', root, ...args], { timeoutMs: 30_000 });
  expect((await fed('init')).code).toBe(0);
  expect((await fed('team', 'onboard', 'docs')).code).toBe(0);
  expect((await fed('team', 'onboard', 'other')).code).toBe(0);
  return { root, fed, workspace: (team) => join(root, '.fed', 'teams', team) };
}

/** Ended by itself (not killed by the time limit), with a fed message and no stack trace. */
function expectClean(result: FedResult, codes: readonly number[]): void {
  expect(result.code, `killed or wrong exit code; stderr: ${result.stderr}`).not.toBeNull();
  expect(codes).toContain(result.code);
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.stderr).not.toContain('unexpected error');
}

const backdate = (path: string) => {
  const past = new Date(Date.now() - 60_000);
  try {
    utimesSync(path, past, past);
  } catch {
    // a FIFO or device: nothing to settle
  }
};

describe('hostile entries in a signal inbox', () => {
  it.each(Object.keys(HOSTILE_ENTRIES))(
    '%s named x.json: list, actors and monitor end cleanly and other teams keep working',
    async (kind) => {
      const { fed, workspace } = await federation();
      const inbox = join(workspace('docs'), '.fed', 'signals', 'inbox');
      const path = join(inbox, '2026-01-01T000000Z-directive-x.json');
      HOSTILE_ENTRIES[kind]!(path);
      backdate(path);
      // And a garbage ack beside a real signal.
      expect((await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'docs work')).code).toBe(
        0,
      );
      expect(
        (await fed('signal', 'send', '--to', 'other', '--type', 'directive', '--subject', 'other work')).code,
      ).toBe(0);

      const list = await fed('signal', 'list', '--team', 'docs');
      expectClean(list, [0]);
      expect(list.stdout).toContain('docs work');
      expect(list.stderr).toContain('2026-01-01T000000Z-directive-x.json');

      const actors = await fed('actors', 'run', '--once');
      expectClean(actors, [0]);
      expect(actors.stdout).toMatch(/docs: MISSION_ASSIGNED/);
      expect(actors.stdout).toMatch(/other: MISSION_ASSIGNED/);

      const monitor = await fed('monitor', '--json');
      expectClean(monitor, [0, 1]);
      expect((JSON.parse(monitor.stdout) as { teams: { team: string }[] }).teams.map((t) => t.team)).toEqual([
        'docs',
        'other',
      ]);
    },
  );

  it('a garbage ack file: the signal is applied, the ack quarantined and rewritten, the actor keeps running', async () => {
    const { fed } = await federation();
    const sent = JSON.parse(
      (await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'work', '--json')).stdout,
    ) as { inbox: string };
    writeFileSync(`${sent.inbox}.ack`, 'not an ack');
    backdate(`${sent.inbox}.ack`);
    const actors = await fed('actors', 'run', '--once');
    expectClean(actors, [0]);
    expect(actors.stdout).toMatch(/docs: quarantined .*\.json\.ack: not valid JSON/);
    const list = await fed('signal', 'list', '--team', 'docs', '--json');
    expect(
      (JSON.parse(list.stdout) as { signals: { message: { acknowledged: boolean } }[] }).signals.map(
        (s) => s.message.acknowledged,
      ),
    ).toEqual([true]);
  });
});

interface DoctorJson {
  findings: { check: string; team?: string; path: string; problem: string; fixable: boolean }[];
}

interface MonitorJson {
  teams: { team: string; healthy: boolean; reasons: string[]; inbox: { total: number } }[];
}

describe("a file where a team's signal folder belongs", () => {
  it.each([
    ['inbox', ['signals', 'inbox']],
    ['outbox', ['signals', 'outbox']],
    ['signals folder', ['signals']],
  ])(
    'its %s: fed doctor (and --fix) reports that team, fed monitor marks it unhealthy, the other team is checked',
    async (_, below) => {
      const { fed, workspace } = await federation();
      expect((await fed('signal', 'send', '--to', 'other', '--type', 'directive', '--subject', 'work')).code).toBe(0);
      const file = join(workspace('docs'), '.fed', ...below);
      rmSync(file, { recursive: true });
      writeFileSync(file, 'x');

      const doctor = await fed('doctor', '--json');
      expectClean(doctor, [1]);
      expect((JSON.parse(doctor.stdout) as DoctorJson).findings).toEqual([
        {
          check: 'folder',
          team: 'docs',
          path: file,
          problem: `${file} is a file where fed keeps a folder; commands that write there fail`,
          fix: `move it aside (mv ${file} ${file}.bak); fed creates the folder again when it needs it`,
          fixable: false,
          fixed: false,
        },
      ]);
      const fix = await fed('doctor', '--fix');
      expectClean(fix, [1]);
      expect(fix.stdout).toContain(`folder (docs): ${file} is a file where fed keeps a folder`);

      const monitor = await fed('monitor', '--json');
      expectClean(monitor, [0]);
      const { teams } = JSON.parse(monitor.stdout) as MonitorJson;
      expect(teams).toEqual([
        expect.objectContaining({
          team: 'docs',
          healthy: false,
          reasons: [
            expect.stringMatching(/^cannot read the team's signal boxes: .*\[ENOTDIR\]; move that file aside$/),
          ],
        }),
        expect.objectContaining({ team: 'other', healthy: true, inbox: { total: 1, unacknowledged: 1 } }),
      ]);
      expect(teams[0]!.reasons[0]).toContain(join(workspace('docs'), '.fed', 'signals'));
    },
  );

  it("meta's own inbox: fed doctor reports it with the teams checked; fed monitor stops naming it (exit 2)", async () => {
    const { root, fed } = await federation();
    const inbox = join(root, '.fed', 'signals', 'inbox');
    rmSync(inbox, { recursive: true });
    writeFileSync(inbox, 'x');
    const doctor = await fed('doctor', '--json');
    expectClean(doctor, [1]);
    expect((JSON.parse(doctor.stdout) as DoctorJson).findings).toEqual([
      expect.objectContaining({ check: 'folder', path: inbox, fixable: false }),
    ]);
    const monitor = await fed('monitor');
    expectClean(monitor, [2]);
    expect(monitor.stderr).toBe(
      `fed: ${inbox}: a part of it is a file where fed expects a directory (scandir) [ENOTDIR]; move that file aside\n`,
    );
  });
});

describe('hostile state files', () => {
  it.each(['a FIFO', 'a directory', 'a 2 GiB sparse file'])(
    '%s as a team’s lifecycle.json or journal: that team is reported, the other keeps working',
    async (kind) => {
      const { fed, workspace } = await federation();
      const state = join(workspace('docs'), '.fed', 'state');
      mkdirSync(state, { recursive: true });
      HOSTILE_ENTRIES[kind]!(join(state, 'lifecycle.json'));
      expect(
        (await fed('signal', 'send', '--to', 'other', '--type', 'directive', '--subject', 'other work')).code,
      ).toBe(0);
      const actors = await fed('actors', 'run', '--once');
      // The other team ran; exit 2 says one team's state could not be used.
      expectClean(actors, [2]);
      expect(actors.stdout + actors.stderr).toMatch(
        /lifecycle\.json cannot be used: .*not a regular file|lifecycle\.json cannot be used: the file is \d+ bytes/,
      );
      expect(actors.stdout).toMatch(/other: MISSION_ASSIGNED/);
      const monitor = await fed('monitor');
      expectClean(monitor, [0, 1]);
      // The table cuts a long reason and says where it is in full.
      expect(monitor.stdout).toMatch(/docs .*cannot read the team's files: .*… \(in full: fed monitor --json\)/);
      const full = await fed('monitor', '--json');
      expectClean(full, [0, 1]);
      expect(full.stdout).toMatch(/lifecycle\.json cannot be used/);
    },
  );

  it('a FIFO as the journal or the agent log does not hang the monitor', async () => {
    const { fed, workspace } = await federation();
    expect((await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'work')).code).toBe(0);
    expect((await fed('actors', 'run', '--once')).code).toBe(0);
    mkdirSync(join(workspace('docs'), '.fed', 'logs'), { recursive: true });
    execFileSync('mkfifo', [join(workspace('docs'), '.fed', 'logs', 'agent.log')]);
    rmSync(join(workspace('docs'), '.fed', 'state', 'journal.jsonl'));
    execFileSync('mkfifo', [join(workspace('docs'), '.fed', 'state', 'journal.jsonl')]);
    const monitor = await fed('monitor');
    expectClean(monitor, [0, 1]);
    expect(monitor.stdout).toMatch(/docs .*cannot read the team's files: .*… \(in full: fed monitor --json\)/);
    const full = await fed('monitor', '--json');
    expectClean(full, [0, 1]);
    expect(full.stdout).toMatch(/agent\.log cannot be used: a named pipe/);
    const status = await fed('team', 'show', 'docs');
    expectClean(status, [0, 1, 2]);
  });
});

/** Team docs given a mission and failed, the only team left for fed run's federation report to describe. */
async function finishedDocsTeam(fed: (...args: string[]) => Promise<{ code: number | null }>): Promise<void> {
  expect((await fed('team', 'archive', 'other')).code).toBe(0);
  expect((await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'work')).code).toBe(0);
  expect((await fed('actors', 'run', '--once')).code).toBe(0);
  expect((await fed('event', '--team', 'docs', 'FAIL', '--data', JSON.stringify({ reason: 'gave up' }))).code).toBe(0);
}

describe('hostile files an agent or a user leaves where a whole command reads them', () => {
  it("a FIFO as a finished team's deliverable does not hang fed run's federation report: the section says why", async () => {
    const { root, fed, workspace } = await federation();
    await finishedDocsTeam(fed);
    execFileSync('mkfifo', [join(workspace('docs'), 'deliverable.md')]);
    const run = await fed('run');
    expectClean(run, [0, 1]);
    const report = readFileSync(join(root, 'federation-report.md'), 'utf8');
    expect(report).toMatch(
      /its files cannot be read: \S*deliverable\.md cannot be used: a named pipe \(FIFO\), not a regular file/,
    );
  });

  it("a deliverable beyond the Markdown limits is not parsed for fed run's federation report: no title, no summary", async () => {
    const { root, fed, workspace } = await federation();
    await finishedDocsTeam(fed);
    // Quotes nested this deep overflowed the parser's stack after seconds of work.
    writeFileSync(join(workspace('docs'), 'deliverable.md'), `# Title\n\n${'>'.repeat(20_000)} deep\n`);
    const run = await fed('run');
    expectClean(run, [0, 1]);
    const report = readFileSync(join(root, 'federation-report.md'), 'utf8');
    expect(report).toContain('- Deliverable: [');
    expect(report).not.toContain('Title');
    expect(report).not.toMatch(/cannot be read/);
  });

  it('a FIFO as the playbook skill does not hang fed launch: refused naming the skill, before any agent starts', async () => {
    const { root, fed } = await federation();
    expect((await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'work')).code).toBe(0);
    const skill = join(root, '.fed', 'skills', 'domain-playbook.md');
    rmSync(skill);
    execFileSync('mkfifo', [skill]);
    const launch = await fed('launch', '--team', 'docs');
    expectClean(launch, [2]);
    expect(launch.stderr).toContain(
      `${skill} cannot be used: a named pipe (FIFO), not a regular file; make the playbook skill a regular file`,
    );
  });
});

describe('hostile config and registry', () => {
  it('config keys named like JavaScript built-ins are ordinary unknown keys', async () => {
    const { root, fed } = await federation();
    writeFileSync(
      join(root, 'federate.config.json'),
      '{"__proto__": {"x": 1}, "constructor": 1, "toString": "x", "hasOwnProperty": null}',
    );
    const show = await fed('config', 'show');
    expectClean(show, [0]);
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty'])
      expect(show.stderr).toContain(`unknown key "${key}" is ignored`);
  });

  it.each(['a FIFO', 'a directory', 'a 2 GiB sparse file', 'a symlink to /dev/null'])(
    '%s as federate.config.json or the registry is refused by name (exit 2)',
    async (kind) => {
      const { root, fed } = await federation();
      const config = join(root, 'federate.config.json');
      rmSync(config);
      HOSTILE_ENTRIES[kind]!(config);
      const show = await fed('config', 'show');
      expectClean(show, [2]);
      expect(show.stderr).toMatch(/federate\.config\.json (cannot be used|is invalid)/);
      rmSync(config, { recursive: true });
      const registry = join(root, '.fed', 'team-registry.json');
      rmSync(registry);
      HOSTILE_ENTRIES[kind]!(registry);
      const list = await fed('team', 'list');
      expectClean(list, [2]);
      expect(list.stderr).toMatch(/team-registry\.json (cannot be used|is corrupt)/);
    },
  );
});

describe('hostile deliverables', () => {
  const cases: Record<string, (path: string) => void> = {
    'a FIFO': HOSTILE_ENTRIES['a FIFO']!,
    'a directory': HOSTILE_ENTRIES['a directory']!,
    'a 2 GiB sparse file': HOSTILE_ENTRIES['a 2 GiB sparse file']!,
    'a symlink to /dev/zero': (path) => symlinkSync('/dev/zero', path),
    'huge Markdown (2 MiB of prose)': (path) => writeFileSync(path, `# Title\n\n${'word '.repeat(400_000)}\n`),
    '20 000 nested blockquotes': (path) => writeFileSync(path, `# Title\n\n${'>'.repeat(20_000)} x\n`),
    'a 3 000-level nested list': (path) =>
      writeFileSync(path, Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(i * 2)}- x`).join('\n')),
    '50 000 emphasis markers': (path) =>
      writeFileSync(path, `# Title\n\n${'*'.repeat(50_000)}x${'*'.repeat(50_000)}\n`),
    '40 KB of list markers nested on every line': (path) =>
      writeFileSync(path, `# Title\n\n${`${'1. - * + '.repeat(10)}text\n`.repeat(400)}`),
    '20 000 nested brackets': (path) => writeFileSync(path, `# Title\n\n${'['.repeat(20_000)}x${']'.repeat(20_000)}\n`),
  };
  it.each(Object.keys(cases))('%s is rejected with a message, in bounded time', async (kind) => {
    const dir = tempDir();
    const file = join(dir, 'deliverable.md');
    cases[kind]!(file);
    const check = await runFed(['deliverable', 'check', file], { cwd: dir, timeoutMs: 30_000 });
    expectClean(check, [2]);
    expect(check.stderr).toContain('deliverable.md');
  });
});
