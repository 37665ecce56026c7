import { getTeam } from '../../core/find-team.js';
import type { LaunchRun } from '../../core/schema/launch-run.js';
import type { NetworkRunRecord } from '../../core/schema/network-policy.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { readRunHistory } from '../../engine/runs/run-history.js';
import { runDurationMs, totalRuns, type RunTotals } from './run-totals.js';

/** One agent run as `fed runs` lists it: who ran, with what, how it ended, what it used. */
export interface RunRow {
  team: string;
  runId: string;
  preset: LaunchRun['preset'];
  model: string | null;
  outcome: LaunchRun['outcome'];
  turns: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  costUsd: number | null;
  durationMs: number;
  startedAt: string;
  endedAt: string;
  /** What the sandbox's proxy saw, when a network policy applied. */
  network?: NetworkRunRecord;
}

export interface TeamRunTotals extends RunTotals {
  team: string;
}

/** `fed runs --json`: every run, oldest first, then the totals per team and for the whole federation (or the one team). */
export interface RunsReport {
  runs: RunRow[];
  teams: TeamRunTotals[];
  total: RunTotals;
}

/**
 * The runs of every registered team (or of the named one), from each team's run journal
 * (`<workspace>/.fed/logs/runs.jsonl`), with their totals. Only journals on this machine are read: a
 * team that works on another machine (JetStream) counts there, and a removed team's runs went with it.
 */
export async function readFederationRuns(fed: Federation, options: { team?: string } = {}): Promise<RunsReport> {
  const registry = await fed.backend.registry.read();
  const teams = options.team ? [getTeam(registry, options.team)] : registry.teams;
  const perTeam = teams.map((team) => ({ team, runs: readRunHistory(team.location) }));
  const runs = perTeam
    .flatMap(({ team, runs }) => runs.map((run) => runRow(team, run)))
    // Oldest first across teams; a stable sort keeps each journal's own order for equal times.
    .sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  return {
    runs,
    teams: perTeam.map(({ team, runs }) => ({ team: team.domainId, ...totalRuns(runs) })),
    total: totalRuns(perTeam.flatMap((t) => t.runs)),
  };
}

function runRow(team: RegistryEntry, run: LaunchRun): RunRow {
  return {
    team: team.domainId,
    runId: run.runId,
    preset: run.preset,
    model: run.model,
    outcome: run.outcome,
    turns: run.turns,
    inputTokens: run.inputTokens,
    outputTokens: run.outputTokens,
    cacheReadTokens: run.cacheReadTokens,
    cacheWriteTokens: run.cacheWriteTokens,
    costUsd: run.costUsd,
    durationMs: runDurationMs(run),
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    ...(run.network ? { network: run.network } : {}),
  };
}
