import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DoctorReport, federationPaths, runCli, workspacePaths } from 'fed/testing';
import { archiveSignals, openFederation } from 'fed';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { treeDigest } from '../helpers/tree-digest.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 26 item 3: every runtime folder fed writes into — meta's boxes, the delivery facts, the federation
 * journal, onboarding, a team's state, logs, launch and history folders — is refused when it is (or goes
 * through) a symbolic link, whether the link leads outside the root or into the codebase; nothing is
 * written through it.
 */

/** `fed <args>` in-process: the exit code and what it printed. */
async function fed(root: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const out = { stdout: '', stderr: '' };
  const code = await runCli([...args, '--root', root], {
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    terminal: (text) => void (out.stdout += text),
    env: { PATH: process.env.PATH, FED_TELEMETRY_ENABLED: 'false', ...env },
    cwd: root,
    isTTY: false,
  });
  return { code, ...out };
}

type Target = 'outside' | 'codebase';

/** Replace the folder at `path` with a link to a folder holding what it held: outside the root, or in the codebase. */
function plantFolderLink(root: string, path: string, target: Target): string {
  const dir = target === 'outside' ? join(tempDir('fed-outside-'), 'moved') : join(root, 'src', `linked-${Date.now()}`);
  mkdirSync(dirname(dir), { recursive: true });
  if (existsSync(path)) {
    cpSync(path, dir, { recursive: true });
    rmSync(path, { recursive: true });
  } else mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'codebase.ts'), 'export const untouched = true;\n');
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(dir, path);
  return dir;
}

const team = (root: string) => workspacePaths(join(root, '.fed', 'teams', 'docs'));

/** Each runtime folder, and a command that writes into it. */
const CASES: [what: string, folder: (root: string) => string, args: string[]][] = [
  [
    "meta's inbox",
    (root) => workspacePaths(root).inbox,
    ['signal', 'send', '--from', 'docs', '--to', 'meta', '--type', 'report', '--subject', 'Done'],
  ],
  [
    "meta's outbox",
    (root) => workspacePaths(root).outbox,
    ['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Go'],
  ],
  [
    "meta's signals folder",
    (root) => workspacePaths(root).signals,
    ['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Go'],
  ],
  [
    'the delivery facts',
    (root) => join(federationPaths(root).fedDir, 'delivery'),
    ['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Go'],
  ],
  ['the onboarding intents', (root) => federationPaths(root).onboarding, ['team', 'onboard', 'api']],
  ["the teams' workspaces folder", (root) => federationPaths(root).teams, ['team', 'onboard', 'api']],
  ["a team's state", (root) => team(root).state, ['event', '--team', 'docs', 'FAIL', '--data', '{"reason":"x"}']],
  ["a team's logs", (root) => team(root).logs, ['launch', '--team', 'docs', '--agent', fakeAgent('complete')]],
  [
    "a team's launch folder",
    (root) => team(root).launch,
    ['launch', '--team', 'docs', '--agent', fakeAgent('complete')],
  ],
  [
    "a team's command shims",
    (root) => team(root).launchBin,
    ['launch', '--team', 'docs', '--agent', fakeAgent('complete')],
  ],
  [
    "a team's transcripts",
    (root) => team(root).runTranscripts,
    ['launch', '--team', 'docs', '--agent', fakeAgent('complete')],
  ],
  ["a team's kept runs", (root) => team(root).history, ['team', 'retry', 'docs']],
];

describe('runtime folders that are symbolic links are refused (issue 26 item 3)', () => {
  for (const target of ['outside', 'codebase'] as const) {
    for (const [what, folder, args] of CASES) {
      it(`${what} linked to a folder ${target === 'outside' ? 'outside the root' : 'of the codebase'}: fed ${args.slice(0, 2).join(' ')} is refused`, async () => {
        const { root } = await federationWithMission();
        // A failed team for retry to act on.
        if (args[1] === 'retry')
          expect((await fed(root, ['event', '--team', 'docs', 'FAIL', '--data', '{"reason":"x"}'])).code).toBe(0);
        const linked = plantFolderLink(root, folder(root), target);
        const before = treeDigest(linked);
        const result = await fed(root, args);
        expect(result.code, `${result.stdout}${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(/goes through a symbolic link/);
        expect(result.stderr).toContain(folder(root));
        expect(treeDigest(linked)).toEqual(before);
      }, 30_000);
    }
  }

  // The federation journal refuses the command (exit 2); a lifecycle journal line is retried later, so a
  // failed append is a warning (the envelope is the lifecycle's record). Neither writes through the link.
  for (const [what, file, args, exit] of [
    ['the federation journal', (root: string) => federationPaths(root).federationJournal, ['team', 'pause', 'docs'], 2],
    [
      "a team's lifecycle journal",
      (root: string) => team(root).journal,
      ['event', '--team', 'docs', 'FAIL', '--data', '{"reason":"x"}'],
      0,
    ],
  ] as const) {
    it(`${what} linked to a codebase file: fed ${args.slice(0, 2).join(' ')} writes nothing through it and says so`, async () => {
      const { root } = await federationWithMission();
      const codebase = join(root, 'README.md');
      const before = readFileSync(codebase, 'utf8');
      mkdirSync(dirname(file(root)), { recursive: true });
      rmSync(file(root), { force: true });
      symlinkSync(codebase, file(root));
      const result = await fed(root, [...args]);
      expect(result.code, `${result.stdout}${result.stderr}`).toBe(exit);
      expect(result.stderr).toContain(
        `${file(root)} is a symbolic link, not a regular file; fed does not write through it`,
      );
      expect(readFileSync(codebase, 'utf8')).toBe(before);
    }, 30_000);
  }

  it('a link an agent leaves behind during its run is refused when fed records the run, and nothing is written through it', async () => {
    const { root } = await federationWithMission();
    const codebase = join(root, 'src');
    mkdirSync(codebase);
    writeFileSync(join(codebase, 'index.ts'), 'export const untouched = true;\n');
    const before = treeDigest(codebase);
    const logs = team(root).logs;
    // From inside its workspace (even sandboxed, the codebase read-only): its logs folder becomes a link to the codebase.
    const agent = `sh -c 'mv .fed/logs .fed/logs-moved && ln -s ${codebase} .fed/logs'`;
    const result = await fed(root, ['launch', '--team', 'docs', '--agent', agent]);
    expect(result.code, `${result.stdout}${result.stderr}`).toBe(2);
    expect(result.stderr).toContain(`goes through a symbolic link: ${logs}`);
    expect(treeDigest(codebase)).toEqual(before);
  }, 30_000);

  it('fed doctor lists every linked runtime path; --fix leaves the links, and what is behind them, alone', async () => {
    const { root } = await federationWithMission();
    const outside = tempDir('fed-outside-');
    const codebase = join(root, 'src');
    mkdirSync(codebase);
    const paths = workspacePaths(root);
    const docs = team(root);
    // Behind the chat link: a lock whose holder is gone, which --fix would remove were it fed's.
    const chat = plantFolderLink(root, federationPaths(root).chat, 'outside');
    writeFileSync(
      join(chat, 'bridge.lock'),
      JSON.stringify({ pid: 999_999_999, host: hostname(), token: 'dead', acquiredAt: new Date().toISOString() }),
    );
    plantFolderLink(root, paths.inbox, 'outside');
    plantFolderLink(root, join(federationPaths(root).fedDir, 'delivery'), 'codebase');
    plantFolderLink(root, docs.history, 'outside');
    plantFolderLink(root, docs.launchBin, 'codebase');
    plantFolderLink(root, join(docs.inbox, 'archive'), 'outside');
    writeFileSync(join(outside, 'journal.jsonl'), "not fed's\n");
    mkdirSync(docs.state, { recursive: true });
    symlinkSync(join(outside, 'journal.jsonl'), docs.journal);
    const before = { outside: treeDigest(outside), codebase: treeDigest(codebase), chat: treeDigest(chat) };

    const result = await fed(root, ['doctor', '--fix', '--json']);
    expect(result.code, result.stderr).toBe(1);
    const findings = (JSON.parse(result.stdout) as DoctorReport).findings.filter((f) => f.check === 'runtime-link');
    expect(findings.map((f) => [f.team ?? 'meta', f.path, f.fixed]).sort()).toEqual(
      [
        ['meta', federationPaths(root).chat, false],
        ['meta', paths.inbox, false],
        ['meta', join(federationPaths(root).fedDir, 'delivery'), false],
        ['docs', docs.history, false],
        ['docs', docs.launchBin, false],
        ['docs', join(docs.inbox, 'archive'), false],
        ['docs', docs.journal, false],
      ].sort(),
    );
    expect(findings[0]?.fix).toMatch(/replace the link/);
    expect({ outside: treeDigest(outside), codebase: treeDigest(codebase), chat: treeDigest(chat) }).toEqual(before);
    for (const link of [paths.inbox, docs.history, docs.journal]) expect(lstatSync(link).isSymbolicLink()).toBe(true);
  }, 30_000);

  it("a team's quarantine folder linked into the codebase: an invalid signal is not moved through it", async () => {
    const { root } = await federationWithMission();
    const quarantine = join(team(root).signals, 'quarantine');
    const linked = plantFolderLink(root, quarantine, 'codebase');
    const before = treeDigest(linked);
    // A broken signal file, old enough to be judged finished.
    const bad = join(team(root).inbox, '2026-01-01T000000Z-directive-broken.json');
    writeFileSync(bad, '{"not": "a signal"');
    utimesSync(bad, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const result = await fed(root, ['actors', 'run', '--team', 'docs', '--once']);
    // A file that cannot be quarantined is a warning (the rest of the inbox is applied); it stays in the inbox.
    const output = `${result.stdout}${result.stderr}`;
    expect(output).toContain(`warning: could not quarantine ${bad}`);
    expect(output).toContain(`goes through a symbolic link: ${quarantine}`);
    expect(treeDigest(linked)).toEqual(before);
    expect(existsSync(bad)).toBe(true);
  }, 30_000);

  it("meta's archive folder linked outside the root: fed signal archive moves nothing through it", async () => {
    const { root } = await federationWithMission();
    const sent = await fed(root, [
      'signal',
      'send',
      '--from',
      'docs',
      '--to',
      'meta',
      '--type',
      'report',
      '--subject',
      'Done',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    expect((await fed(root, ['signal', 'ack', '--all'])).code).toBe(0);
    const archive = join(workspacePaths(root).inbox, 'archive');
    const linked = plantFolderLink(root, archive, 'outside');
    const before = treeDigest(linked);
    const later = openFederation(root, { now: () => new Date(Date.now() + 3_600_000) });
    await expect(
      archiveSignals(later, { team: 'meta', olderThanMs: 60_000 }, { durable: false }),
    ).rejects.toMatchObject({
      code: 'RUNTIME_FOLDER_SYMLINK',
      message: expect.stringContaining(`goes through a symbolic link: ${archive}`) as unknown,
    });
    expect(treeDigest(linked)).toEqual(before);
  }, 30_000);
});
