import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createMachine } from 'xstate';
import { z } from 'zod';
import {
  codingEntry,
  consultantEntry,
  deliverableEntry,
  describeMachine,
  exportFiles,
  exportText,
  machineCatalog,
  packageRoot,
  runCli,
  writeExportFiles,
} from 'fed/testing';
import { teamStatusEntry, type MachineEntry } from 'fed';
import { tempDir } from '../helpers/temp-dir.js';

const DIAGRAMS_DIR = join(packageRoot(), 'diagrams');

function capture(cwd = process.cwd()) {
  const out = { stdout: '', stderr: '' };
  const io = {
    stdout: (t: string) => void (out.stdout += t),
    stderr: (t: string) => void (out.stderr += t),
    terminal: (t: string) => void (out.stdout += t),
    env: {},
    cwd,
    isTTY: false,
  };
  return { io, out };
}

function fakeEntry(config: Parameters<typeof createMachine>[0]): MachineEntry {
  const machine = createMachine(config);
  return { id: machine.id, version: 1, machine, eventSchema: z.never(), events: [] };
}

describe('diagrams/', () => {
  test('is up to date with machines/ (run `npm run diagrams` after changing a machine)', () => {
    const expected = exportFiles(machineCatalog, 'mermaid');
    expect(readdirSync(DIAGRAMS_DIR).sort()).toEqual([...expected.keys()].sort());
    for (const [name, content] of expected) expect(readFileSync(join(DIAGRAMS_DIR, name), 'utf8'), name).toBe(content);
  });
});

describe('machine export', () => {
  test('describes states, initial and every transition from the definition', () => {
    const deliverable = describeMachine(deliverableEntry);
    expect(deliverable).toMatchObject({ id: 'deliverable', version: 1, initial: 'preparing' });
    expect(deliverable.states.map((s) => s.key)).toEqual([
      'preparing',
      'scanning',
      'distilling',
      'aggregating',
      'paused',
      'complete',
      'failed',
    ]);
    expect(deliverable.states.filter((s) => s.final).map((s) => s.key)).toEqual(['complete', 'failed']);
    const scanning = deliverable.states.find((s) => s.key === 'scanning')!;
    expect(scanning.transitions.filter((t) => t.event === 'SCAN_COMPLETE')).toEqual([
      {
        event: 'SCAN_COMPLETE',
        target: 'failed',
        guard: { type: 'scanFoundNothing' },
        actions: [{ type: 'recordNothingFound' }],
      },
      { event: 'SCAN_COMPLETE', target: 'distilling', guard: null, actions: [{ type: 'recordScan' }] },
    ]);
    const paused = deliverable.states.find((s) => s.key === 'paused')!;
    expect(paused.transitions.filter((t) => t.event === 'RESUME').map((t) => [t.target, t.guard])).toEqual(
      ['preparing', 'scanning', 'distilling', 'aggregating'].map((state) => [
        state,
        { type: 'wasPausedIn', params: { state } },
      ]),
    );
  });

  test('eventless transitions are described too, as "always" (a consultant takes a queued question at once)', () => {
    const ready = describeMachine(consultantEntry).states.find((s) => s.key === 'ready')!;
    expect(ready.transitions.filter((t) => t.event === 'always')).toEqual([
      {
        event: 'always',
        target: 'researching',
        guard: { type: 'hasQueuedQuestion' },
        actions: [{ type: 'takeNextQuestion' }],
      },
    ]);
  });

  test('Mermaid: a stateDiagram-v2 with safe ids, labelled transitions, start and final markers', () => {
    const mermaid = exportText([codingEntry], 'mermaid');
    const lines = mermaid.split('\n').map((line) => line.trim());
    expect(lines[0]).toBe('stateDiagram-v2');
    expect(lines).toContain('state "pr-open" as pr_open');
    expect(lines).toContain('[*] --> preparing');
    expect(lines).toContain('testing --> implementing : TESTS_COMPLETE [testsFailed]');
    expect(lines).toContain('testing --> pr_open : TESTS_COMPLETE [testsPassed]');
    expect(lines).toContain('pr_review --> implementing : CHANGES_REQUESTED');
    expect(lines).toContain('paused --> pr_approved : RESUME [wasPausedIn(pr-approved)]');
    expect(lines).toContain(
      'preparing : records MISSION_ASSIGNED [hasNoMission], DIRECTIVE_RECEIVED, QUESTION_RECEIVED',
    );
    expect(lines).toContain('complete --> [*]');
    expect(lines).toContain('failed --> [*]');
    // Every state-changing transition is drawn once.
    const edges = describeMachine(codingEntry).states.flatMap((s) => s.transitions.filter((t) => t.target !== null));
    expect(lines.filter((line) => / --> (?!\[\*\])/.test(line) && !line.startsWith('[*]'))).toHaveLength(edges.length);
  });

  test('Mermaid refuses text it cannot render, naming it', () => {
    const entry = fakeEntry({ id: 'bad', initial: 'a', states: { a: { description: 'one; two' } } });
    expect(() => exportText([entry], 'mermaid')).toThrow(/"one; two"/);
  });

  test('nested states are refused rather than drawn wrong', () => {
    const entry = fakeEntry({ id: 'nested', initial: 'a', states: { a: { initial: 'b', states: { b: {} } } } });
    expect(() => describeMachine(entry)).toThrow(/nested states \(in "a"\)/);
  });

  test('DOT: a digraph with quoted states and labelled edges', () => {
    const dot = exportText([teamStatusEntry], 'dot');
    expect(dot).toMatch(/^digraph "team-status" \{/);
    expect(dot).toContain('"[*]" -> "active";');
    expect(dot).toContain('"paused" -> "active" [label="RESUME"];');
    expect(dot).toContain('"archived" [label="archived", peripheries=2];');
    expect(dot.trimEnd().endsWith('}')).toBe(true);
    const coding = exportText([codingEntry], 'dot');
    expect(coding).toContain(
      '"preparing" [label="preparing\\nrecords MISSION_ASSIGNED [hasNoMission], DIRECTIVE_RECEIVED, QUESTION_RECEIVED"];',
    );
  });

  test('JSON: the descriptions of all machines, as one array', () => {
    const parsed = JSON.parse(exportText(machineCatalog, 'json')) as { id: string }[];
    expect(parsed).toEqual(machineCatalog.map(describeMachine));
  });

  test('files: one per machine; Mermaid also gets a Markdown page GitHub renders', () => {
    expect([...exportFiles([deliverableEntry], 'dot').keys()]).toEqual(['deliverable.dot']);
    expect([...exportFiles([deliverableEntry], 'json').keys()]).toEqual(['deliverable.json']);
    const mermaid = exportFiles([deliverableEntry], 'mermaid');
    expect([...mermaid.keys()]).toEqual(['deliverable.mmd', 'deliverable.md']);
    expect(mermaid.get('deliverable.md')).toContain(`\`\`\`mermaid\n${mermaid.get('deliverable.mmd')}\`\`\``);
    expect(mermaid.get('deliverable.md')).toContain(
      '| `failed` (final) | Error occurred (context.failure says why and where) |',
    );
  });

  test('writes into a directory it creates', () => {
    const dir = join(tempDir(), 'out', 'diagrams');
    const written = writeExportFiles(dir, exportFiles([teamStatusEntry], 'json'));
    expect(written).toEqual([join(dir, 'team-status.json')]);
    expect(JSON.parse(readFileSync(written[0]!, 'utf8'))).toEqual(describeMachine(teamStatusEntry));
  });
});

describe('fed machines export', () => {
  test('prints every machine as Mermaid by default, or one machine with --machine', async () => {
    const all = capture();
    expect(await runCli(['machines', 'export'], all.io)).toBe(0);
    expect(all.out.stdout).toBe(exportText(machineCatalog, 'mermaid'));
    const one = capture();
    expect(await runCli(['machines', 'export', '--machine', 'coding', '--format', 'dot'], one.io)).toBe(0);
    expect(one.out.stdout).toBe(exportText([codingEntry], 'dot'));
  });

  test('--out writes the files relative to the working directory and lists them', async () => {
    const cwd = tempDir();
    const { io, out } = capture(cwd);
    expect(await runCli(['machines', 'export', '--format', 'json', '--out', 'exported'], io)).toBe(0);
    expect(readdirSync(join(cwd, 'exported')).sort()).toEqual([
      'coding.json',
      'consultant.json',
      'deliverable.json',
      'team-status.json',
    ]);
    expect(out.stdout).toBe(
      ['team-status', 'deliverable', 'coding', 'consultant']
        .map((id) => `wrote ${join('exported', `${id}.json`)}\n`)
        .join(''),
    );
  });

  test('--out naming a file, or a path through one, exits 2 saying so: the fix is another --out', async () => {
    const cwd = tempDir();
    const file = join(cwd, 'afile');
    writeFileSync(file, 'mine\n');
    for (const [out, problem] of [
      ['afile', `--out ${file} names a file`],
      [join('afile', 'sub'), `--out ${join(file, 'sub')}: ${file} is a file`],
    ] as const) {
      const { io, out: output } = capture(cwd);
      expect(await runCli(['machines', 'export', '--out', out], io)).toBe(2);
      // Never "move that file aside": the file is the user's, named by mistake.
      expect(output.stderr).toBe(`fed: ${problem}, not a folder; give a folder to write the files into\n`);
    }
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  test('an unknown format or machine exits 2 naming the choices', async () => {
    const format = capture();
    expect(await runCli(['machines', 'export', '--format', 'svg'], format.io)).toBe(2);
    expect(format.out.stderr).toMatch(/mermaid, dot, json/);
    const machine = capture();
    expect(await runCli(['machines', 'export', '--machine', 'reviewer'], machine.io)).toBe(2);
    expect(machine.out.stderr).toMatch(/team-status, deliverable, coding, consultant/);
  });
});
