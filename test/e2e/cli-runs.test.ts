import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onboardTeam, openFederation } from 'fed';
import {
  appendLearningEntries,
  appendRun,
  getTeam,
  type LaunchRun,
  launchRunSchema,
  readRegistry,
  workspacePaths,
} from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';

/** `fed runs`, `fed team show`'s totals, the federation budget and `fed team learnings`, on the built CLI. */
function run(overrides: Partial<LaunchRun>): LaunchRun {
  return launchRunSchema.parse({
    runId: 'r',
    preset: 'claude',
    command: ['claude', '-p', '<prompt: .fed/logs/runs/r.prompt.md>'],
    sessionId: null,
    resumedSessionId: null,
    outcome: 'completed',
    reason: null,
    exitCode: 0,
    signal: null,
    turns: null,
    inputTokens: null,
    outputTokens: null,
    costUsd: null,
    stateBefore: 'preparing',
    stateAfter: 'complete',
    progressed: true,
    sandboxed: false,
    transcriptPath: '/t.jsonl',
    startedAt: '2026-11-01T10:00:00.000Z',
    endedAt: '2026-11-01T10:05:00.000Z',
    ...overrides,
  });
}

async function federationWithRuns(): Promise<string> {
  const { root } = await federationWithMission();
  const fed = openFederation(root);
  await onboardTeam(fed, { domain: 'api' });
  const team = (name: string) => getTeam(readRegistry(root), name);
  // Journals are per team; `fed runs` lists them oldest first across teams.
  appendRun(
    fed,
    team('docs'),
    run({
      runId: 'docs-1',
      model: 'claude-sonnet-4',
      turns: 12,
      inputTokens: 1000,
      outputTokens: 200,
      cacheReadTokens: 5000,
      cacheWriteTokens: 300,
      costUsd: 0.5,
    }),
  );
  appendRun(
    fed,
    team('docs'),
    run({
      runId: 'docs-2',
      outcome: 'rate-limited',
      turns: 3,
      costUsd: 0.25,
      startedAt: '2026-11-01T12:00:00.000Z',
      endedAt: '2026-11-01T12:01:00.000Z',
    }),
  );
  appendRun(
    fed,
    team('api'),
    run({
      runId: 'api-1',
      preset: 'codex',
      turns: 7,
      inputTokens: 800,
      outputTokens: 90,
      startedAt: '2026-11-01T11:00:00.000Z',
      endedAt: '2026-11-01T11:30:00.000Z',
    }),
  );
  return root;
}

function setBudget(root: string, federationUsd: number): void {
  const file = join(root, 'federate.config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...config, agent: { limits: { federationUsd } } }, null, 2));
}

describe('fed runs (CLI)', () => {
  it('lists every run oldest first with unknowns as -, and totals that say which runs reported no cost', async () => {
    const root = await federationWithRuns();
    const text = await runFed(['--root', root, 'runs']);
    expect(text, text.stderr).toMatchObject({ code: 0 });
    const lines = text.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^TEAM +RUN +PRESET +MODEL +OUTCOME +TURNS +INPUT +OUTPUT +CACHE READ +CACHE WRITE +DURATION +COST$/,
    );
    expect(lines[1]).toMatch(
      /^docs +docs-1 +claude +claude-sonnet-4 +completed +12 +1000 +200 +5000 +300 +5m +\$0\.5000$/,
    );
    expect(lines[2]).toMatch(/^api +api-1 +codex +- +completed +7 +800 +90 +- +- +30m +-$/);
    expect(lines[3]).toMatch(/^docs +docs-2 +claude +- +rate-limited +3 +- +- +- +- +1m +\$0\.2500$/);
    expect(text.stdout).toMatch(/^docs +2 +15 +1000 +200 +5000 +300 +6m +\$0\.7500$/m);
    expect(text.stdout).toMatch(/^api +1 +7 +800 +90 +- +- +30m +- \(1 run without a reported cost\)$/m);
    expect(text.stdout).toMatch(
      /^\(federation\) +3 +22 +1800 +290 +5000 +300 +36m +\$0\.7500 \(\+1 run without a reported cost\)$/m,
    );

    const json = await runFed(['--root', root, 'runs', '--json']);
    const report = JSON.parse(json.stdout) as {
      runs: { runId: string; costUsd: number | null; model: string | null }[];
      teams: unknown[];
      total: unknown;
    };
    expect(report.runs.map((r) => [r.runId, r.model, r.costUsd])).toEqual([
      ['docs-1', 'claude-sonnet-4', 0.5],
      ['api-1', null, null],
      ['docs-2', null, 0.25],
    ]);
    expect(report.teams).toEqual([
      expect.objectContaining({ team: 'docs', runs: 2, costUsd: 0.75, runsWithoutCost: 0, cacheReadTokens: 5000 }),
      expect.objectContaining({ team: 'api', runs: 1, costUsd: null, runsWithoutCost: 1, cacheReadTokens: null }),
    ]);
    expect(report.total).toMatchObject({
      runs: 3,
      turns: 22,
      inputTokens: 1800,
      costUsd: 0.75,
      runsWithoutCost: 1,
      durationMs: 36 * 60_000,
    });

    const api = await runFed(['--root', root, 'runs', '--team', 'api', '--json']);
    expect((JSON.parse(api.stdout) as { runs: unknown[] }).runs).toHaveLength(1);

    // fed team show: the team's totals, as a line and in --json.
    const show = await runFed(['--root', root, 'team', 'show', 'docs']);
    expect(show.stdout).toMatch(
      /^runs: +2 runs, 15 turns, tokens 1000 in \/ 200 out \/ 5000 cache read \/ 300 cache write, 6m, \$0\.7500 \(each: fed runs --team docs\)$/m,
    );
    const shown = JSON.parse((await runFed(['--root', root, 'team', 'show', 'api', '--json'])).stdout) as {
      runTotals: unknown;
    };
    expect(shown.runTotals).toMatchObject({ runs: 1, costUsd: null, runsWithoutCost: 1 });
  });

  it('refuses a launch once the federation spent its budget (exit 2), naming the spend and the limit', async () => {
    const root = await federationWithRuns();
    setBudget(root, 0.75);
    const refused = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('complete')]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /^fed: the federation's agent runs have cost \$0\.7500 \(\+1 run without a reported cost\), reaching its budget of \$0\.7500 \(agent\.limits\.federationUsd\); no agent is launched until you raise agent\.limits\.federationUsd in federate\.config\.json/m,
    );
    // Refused before the agent started: no run was added.
    const after = JSON.parse((await runFed(['--root', root, 'runs', '--team', 'docs', '--json'])).stdout) as {
      runs: unknown[];
    };
    expect(after.runs).toHaveLength(2);

    // Below the budget the launch goes ahead.
    setBudget(root, 1);
    const launched = await runFed(['--root', root, 'launch', '--team', 'docs', '--agent', fakeAgent('complete')]);
    expect(launched, launched.stderr).toMatchObject({ code: 0 });
    const runs = JSON.parse((await runFed(['--root', root, 'runs', '--json'])).stdout) as { runs: unknown[] };
    expect(runs.runs).toHaveLength(4);
  });
});

describe('fed team learnings (CLI)', () => {
  it("lists a team's findings newest last, by category, and as JSON; lines that are not entries are counted", async () => {
    const { root } = await federationWithMission();
    const file = workspacePaths(getTeam(readRegistry(root), 'docs').location).learningLog;
    const entry = { domain: 'docs', tags: ['cli'], confidence: 'high' as const };
    appendLearningEntries(file, [
      {
        ...entry,
        timestamp: '2026-11-01T10:05:00.000Z',
        category: 'entry-point',
        content: 'The CLI starts in src/cli/main.ts',
      },
      {
        ...entry,
        timestamp: '2026-11-01T10:00:00.000Z',
        category: 'stack',
        content: 'TypeScript on Node 20',
        tags: [],
      },
    ]);
    appendFileSync(file, '{"torn": \n');
    const text = await runFed(['--root', root, 'team', 'learnings', 'docs']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(
      '2026-11-01T10:00:00.000Z  stack        high    TypeScript on Node 20\n' +
        '2026-11-01T10:05:00.000Z  entry-point  high    The CLI starts in src/cli/main.ts  [cli]\n',
    );
    expect(text.stderr).toMatch(
      /warning: skipped 1 line\(s\) of .*learning-log\.jsonl that are not learning-log entries/,
    );
    const stack = await runFed(['--root', root, 'team', 'learnings', 'docs', '--category', 'stack', '--json']);
    expect(JSON.parse(stack.stdout)).toMatchObject({
      team: 'docs',
      path: file,
      skippedLines: 1,
      entries: [{ content: 'TypeScript on Node 20' }],
    });
    const none = await runFed(['--root', root, 'team', 'learnings', 'docs', '--category', 'gap']);
    expect(none.stdout).toBe(`no gap findings in docs's learning log (${file})\n`);
    const bad = await runFed(['--root', root, 'team', 'learnings', 'docs', '--category', 'nope']);
    expect(bad.code).toBe(2);
  });
});
