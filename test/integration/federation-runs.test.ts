import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type FederationConfig,
  launchTeam,
  onboardTeam,
  openFederation,
  RefusedError,
  removeTeam,
  runFederation,
  sendSignal,
  setTeamStatus,
} from 'fed';
import {
  federationPaths,
  getTeam,
  keepRemovedRuns,
  readCurrentRun,
  readFederationRuns,
  readRegistry,
  readRemovedRuns,
  readRunHistory,
  renderRuns,
  workspacePaths,
} from 'fed/testing';
import { federationWithMission } from '../helpers/launch-federation.js';

/**
 * Costs and tokens of real runs (fake agent CLIs of two presets: claude reports a cost, gemini only
 * tokens), added up by `fed runs`; the federation budget refusing the next launch; and the prompt kept
 * once per run, in a file the run record names.
 */
const fakeCli = (cli: string) => fileURLToPath(new URL(`../fixtures/agents/bin/${cli}`, import.meta.url));
const entry = (root: string, team: string) => getTeam(readRegistry(root), team);

async function withMission(root: string, team: string): Promise<void> {
  await onboardTeam(openFederation(root), { domain: team });
  await sendSignal(openFederation(root), {
    to: team,
    type: 'directive',
    subject: `Document ${team}`,
    body: 'Write it',
  });
}

function launchWith(root: string, config: FederationConfig, team: string, cli: string) {
  return launchTeam(openFederation(root), team, {
    config,
    agent: fakeCli(cli),
    env: { ...process.env, FAKE_SCENARIO: 'completed' },
    pollMs: 50,
    graceMs: 2_000,
  });
}

describe('costs and budgets over real runs', () => {
  it('fed runs adds up runs of different presets; the budget then refuses a launch before its agent starts', async () => {
    const { root, config } = await federationWithMission();
    await withMission(root, 'api');
    await withMission(root, 'web');

    // fed run, one team at a time: docs spends the budget, and web, whose turn comes after, shows why it did not start.
    const budget = { ...config, agent: { ...config.agent, limits: { federationUsd: 0.2 } } };
    const run = (teams: string[]) =>
      runFederation(openFederation(root), {
        config: budget,
        teams,
        parallel: 1,
        agent: fakeCli('claude'),
        env: { ...process.env, FAKE_SCENARIO: 'completed' },
        pollMs: 50,
        graceMs: 2_000,
      });
    const first = await run(['docs', 'web']);
    // Refused before its agent starts: nothing ran, nothing failed.
    expect(first.teams.map((t) => [t.team, t.outcome])).toEqual([
      ['docs', 'complete'],
      ['web', 'refused'],
    ]);
    expect(first).toMatchObject({ completed: 1, failed: 0, refused: 1 });
    expect(first.teams[1]!.reason).toMatch(
      /^the federation's agent runs have cost \$0\.2000, reaching its budget of \$0\.2000/,
    );
    const api = await launchWith(root, config, 'api', 'gemini');
    expect(api.outcome, readFileSync(api.logPath, 'utf8')).toBe('complete');

    const report = await readFederationRuns(openFederation(root));
    expect(report.runs.map((r) => [r.team, r.preset, r.outcome, r.costUsd])).toEqual([
      ['docs', 'claude', 'completed', 0.2],
      ['api', 'gemini', 'completed', null],
    ]);
    // Gemini's input without its 120 cached tokens, as every CLI's input column counts.
    expect(report.runs[1]).toMatchObject({ turns: 4, inputTokens: 480, outputTokens: 60, costUsd: null });
    expect(report.teams.map((t) => [t.team, t.runs, t.costUsd, t.runsWithoutCost])).toEqual([
      ['docs', 1, 0.2, 0],
      ['api', 1, null, 1],
      ['web', 0, null, 0],
    ]);
    expect(report.total).toMatchObject({
      runs: 2,
      inputTokens: 880,
      outputTokens: 100,
      costUsd: 0.2,
      runsWithoutCost: 1,
    });
    const text = renderRuns(report);
    expect(text).toMatch(/^docs +\S+ +claude +\S+ +completed /m);
    expect(text).toMatch(/^api +\S+ +gemini +\S+ +completed +4 +480 +60 +\S+ +\S+ +\S+ +-$/m);
    expect(text).toMatch(/^\(federation\) +2 .*\$0\.2000 \(\+1 run without a reported cost\)$/m);

    // The spend reached the budget: the next launch is refused before anything starts, naming the spend.
    const refused = await launchWith(root, budget, 'web', 'claude').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RefusedError);
    expect(refused).toMatchObject({ code: 'FEDERATION_BUDGET_SPENT' });
    expect((refused as Error).message).toMatch(
      /have cost \$0\.2000 \(\+1 run without a reported cost\), reaching its budget of \$0\.2000 \(agent\.limits\.federationUsd\)/,
    );
    expect(readRunHistory(entry(root, 'web').location)).toEqual([]);
    expect(readCurrentRun(entry(root, 'web').location)).toBeUndefined();

    // And a fed run is refused as a whole (exit 2), before any team starts.
    await expect(run(['web'])).rejects.toMatchObject({ code: 'FEDERATION_BUDGET_SPENT' });
    expect(readRunHistory(entry(root, 'web').location)).toEqual([]);
  });

  it("a removed team's runs still count: fed runs lists them, and the budget still refuses a launch", async () => {
    const { root, config } = await federationWithMission();
    await withMission(root, 'web');
    const budget = { ...config, agent: { ...config.agent, limits: { federationUsd: 0.2 } } };
    const docs = await launchWith(root, config, 'docs', 'claude');
    expect(docs.outcome, readFileSync(docs.logPath, 'utf8')).toBe('complete');
    await expect(launchWith(root, budget, 'web', 'claude')).rejects.toMatchObject({ code: 'FEDERATION_BUDGET_SPENT' });

    const workspace = entry(root, 'docs').location;
    await setTeamStatus(openFederation(root), 'docs', { type: 'ARCHIVE' });
    await removeTeam(openFederation(root), 'docs');
    expect(existsSync(workspace)).toBe(false);
    expect(readRemovedRuns(root).map((r) => [r.team, r.run.runId, r.run.costUsd])).toEqual([
      ['docs', docs.lastRun.runId, 0.2],
    ]);

    // Money spent stays spent: web is still refused, naming the whole spend.
    const refused = await launchWith(root, budget, 'web', 'claude').catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'FEDERATION_BUDGET_SPENT' });
    expect((refused as Error).message).toMatch(/have cost \$0\.2000, reaching its budget of \$0\.2000/);
    expect(readRunHistory(entry(root, 'web').location)).toEqual([]);

    const report = await readFederationRuns(openFederation(root));
    expect(report.runs).toMatchObject([{ team: 'docs', removed: true, runId: docs.lastRun.runId, costUsd: 0.2 }]);
    expect(report.teams.map((t) => [t.team, t.removed ?? false, t.runs, t.costUsd])).toEqual([
      ['web', false, 0, null],
      ['docs', true, 1, 0.2],
    ]);
    expect(report.total).toMatchObject({ runs: 1, costUsd: 0.2 });
    expect(renderRuns(report)).toMatch(/^docs \(removed\) +\S+ +claude /m);
    expect(await readFederationRuns(openFederation(root), { team: 'docs' })).toMatchObject({
      runs: [{ team: 'docs', removed: true }],
      total: { runs: 1, costUsd: 0.2 },
    });

    // A removal refused after keeping the runs, or re-run after an interruption, keeps each run once, and
    // the runs of a team still registered count once (web's own run, without a cost: gemini).
    expect((await launchWith(root, config, 'web', 'gemini')).outcome).toBe('complete');
    expect(keepRemovedRuns(root, 'web', entry(root, 'web').location)).toBe(1);
    expect(keepRemovedRuns(root, 'web', entry(root, 'web').location)).toBe(0);
    expect(readFileSync(federationPaths(root).removedRuns, 'utf8').trim().split('\n')).toHaveLength(2);
    expect((await readFederationRuns(openFederation(root))).total).toMatchObject({ runs: 2, costUsd: 0.2 });

    // A team onboarded later under the same id is another team: its own runs are its own, the old ones still count.
    await withMission(root, 'docs');
    const again = await readFederationRuns(openFederation(root));
    expect(again.teams.map((t) => [t.team, t.removed ?? false, t.runs])).toEqual([
      ['web', false, 1],
      ['docs', false, 0],
      ['docs', true, 1],
    ]);
    expect(again.total).toMatchObject({ runs: 2, costUsd: 0.2, runsWithoutCost: 1 });
    expect((await readFederationRuns(openFederation(root), { team: 'docs' })).runs).toEqual([]);
  });

  it('keeps the prompt once per run: the record names its file, and the agent got it whole', async () => {
    const { root, config } = await federationWithMission();
    const result = await launchWith(root, config, 'docs', 'claude');
    expect(result.outcome, readFileSync(result.logPath, 'utf8')).toBe('complete');
    const run = result.lastRun;
    const workspace = entry(root, 'docs').location;
    expect(run.promptPath).toBe(join(workspacePaths(workspace).runTranscripts, `${run.runId}.prompt.md`));
    // The fake claude checks it got the whole launch prompt after -p; the record names the file instead.
    const prompt = readFileSync(run.promptPath!, 'utf8');
    expect(prompt).toBe(readFileSync(workspacePaths(workspace).launchPrompt, 'utf8'));
    expect(prompt).toMatch(/^# Mission for team docs/);
    const placeholder = `<prompt: ${relative(workspace, run.promptPath!)}>`;
    expect(placeholder).toBe(`<prompt: .fed/logs/runs/${run.runId}.prompt.md>`);
    expect(run.command[run.command.indexOf('-p') + 1]).toBe(placeholder);
    const journal = readFileSync(workspacePaths(workspace).runsJournal, 'utf8');
    expect(journal).not.toContain('# Mission for team');
    expect(journal).toContain(placeholder);
    // The agent log's header shows the command as recorded, too.
    expect(readFileSync(result.logPath, 'utf8')).toContain(`"-p","${placeholder}"`);
    expect(readFileSync(result.logPath, 'utf8')).not.toContain('# Mission for team');
    expect(existsSync(run.transcriptPath)).toBe(true);
  });
});
