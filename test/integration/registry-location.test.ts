import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { type DoctorReport, federationPaths, runCli, toJsonText, workspacePaths } from 'fed/testing';
import { treeDigest } from '../helpers/tree-digest.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Issue 26 item 5: a registry `location` inside the root is a team's workspace only when it is the one fed
 * made for that team. Another team's workspace, the root or a codebase folder is refused (two teams would
 * share an inbox and a lifecycle; fed would write and run an agent among the project's files), and
 * `fed doctor --fix` never takes another team's workspace over by rewriting its marker.
 */

async function fed(root: string, args: string[]) {
  const out = { stdout: '', stderr: '' };
  const code = await runCli([...args, '--root', root], {
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    terminal: (text) => void (out.stdout += text),
    env: { PATH: process.env.PATH, FED_TELEMETRY_ENABLED: 'false' },
    cwd: root,
    isTTY: false,
  });
  return { code, ...out };
}

/** A federation with teams docs and api, each with a mission; a codebase folder `src/`. */
async function federation(): Promise<string> {
  const root = tempDir();
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'index.ts'), 'export const untouched = true;\n');
  for (const domain of ['docs', 'api']) {
    await onboardTeam(openFederation(root), { domain }, { durable: false });
    await sendSignal(openFederation(root), { to: domain, type: 'directive', subject: 'Mission' }, { durable: false });
  }
  return root;
}

/** The registry edited by hand: `domain`'s location set to `location`. */
function setLocation(root: string, domain: string, location: string): void {
  const file = federationPaths(root).registry;
  const registry = JSON.parse(readFileSync(file, 'utf8')) as { teams: { domain: string; location: string }[] };
  registry.teams.find((t) => t.domain === domain)!.location = location;
  writeFileSync(file, JSON.stringify(registry, null, 2));
}

const docsWorkspace = (root: string) => join(root, '.fed', 'teams', 'docs');

/** The commands that write in (or run an agent in) a team's workspace. */
const WRITERS: [string, string[]][] = [
  ['fed signal send', ['signal', 'send', '--to', 'api', '--type', 'directive', '--subject', 'Go']],
  ['fed event', ['event', '--team', 'api', 'FAIL', '--data', '{"reason":"x"}']],
  ['fed team pause', ['team', 'pause', 'api']],
  ['fed actors run --team', ['actors', 'run', '--team', 'api', '--once']],
  ['fed launch', ['launch', '--team', 'api', '--agent', 'touch escaped']],
];

describe("a registry location that is not the team's own workspace (issue 26 item 5)", () => {
  for (const [where, location] of [
    ["another team's workspace", docsWorkspace],
    ['the federation root', (root: string) => root],
    ['a codebase folder', (root: string) => join(root, 'src')],
  ] as const) {
    it(`team api placed at ${where}: every command that writes there is refused, and nothing there changes`, async () => {
      const root = await federation();
      setLocation(root, 'api', location(root));
      const before = { docs: treeDigest(docsWorkspace(root)), src: treeDigest(join(root, 'src')) };
      for (const [what, args] of WRITERS) {
        const result = await fed(root, args);
        expect(result.code, `${what}: ${result.stdout}${result.stderr}`).toBe(2);
        expect(result.stderr, what).toContain(
          `the registry places team "api" at ${location(root)}, which is not the workspace fed made for it (${join(root, '.fed', 'teams', 'api')})`,
        );
      }
      expect({ docs: treeDigest(docsWorkspace(root)), src: treeDigest(join(root, 'src')) }).toEqual(before);
      // The team whose workspace it is carries on.
      const docs = await fed(root, ['actors', 'run', '--team', 'docs', '--once']);
      expect(docs.code, docs.stderr).toBe(0);
    }, 60_000);
  }

  it("fed doctor reports the misplaced team, and --fix leaves the other team's marker alone", async () => {
    const root = await federation();
    setLocation(root, 'api', docsWorkspace(root));
    const marker = workspacePaths(docsWorkspace(root)).marker;
    const before = readFileSync(marker, 'utf8');
    const result = await fed(root, ['doctor', '--fix', '--json']);
    expect(result.code, result.stderr).toBe(1);
    const findings = (JSON.parse(result.stdout) as DoctorReport).findings;
    expect(findings).toEqual([
      expect.objectContaining({ check: 'workspace', team: 'api', path: docsWorkspace(root), fixed: false }),
    ]);
    expect(findings[0]?.problem).toContain('which is not the workspace fed made for it');
    expect(readFileSync(marker, 'utf8')).toBe(before);
    expect(JSON.parse(before)).toMatchObject({ domainId: 'docs' });
  }, 30_000);

  it('a workspace whose marker names another team is a finding that --fix does not rewrite', async () => {
    const root = await federation();
    const marker = workspacePaths(join(root, '.fed', 'teams', 'api')).marker;
    const planted = toJsonText({ federationRoot: root, domainId: 'docs' });
    writeFileSync(marker, planted);
    const result = await fed(root, ['doctor', '--fix', '--json']);
    expect(result.code, result.stderr).toBe(1);
    expect((JSON.parse(result.stdout) as DoctorReport).findings).toEqual([
      expect.objectContaining({ check: 'marker', team: 'api', path: marker, fixable: false, fixed: false }),
    ]);
    expect(readFileSync(marker, 'utf8')).toBe(planted);
  }, 30_000);
});
