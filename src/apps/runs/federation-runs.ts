import { findTeam, getTeam } from '../../core/find-team.js';
import type { LaunchRun } from '../../core/schema/launch-run.js';
import type { NetworkRunRecord } from '../../core/schema/network-policy.js';
import type { RemovedRun } from '../../core/schema/removed-runs.js';
import type { Federation } from '../../engine/context.js';
import { readRemovedRuns } from '../../engine/registry/removed-runs.js';
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
  /** A run of a team `fed team remove` removed since (a team registered under its id now is another). */
  removed?: true;
}

export interface TeamRunTotals extends RunTotals {
  team: string;
  /** The runs of a removed team: what they cost still counts in the federation's total. */
  removed?: true;
}

/** `fed runs --json`: every run, oldest first, then the totals per team and for the whole federation (or the one team). */
export interface RunsReport {
  runs: RunRow[];
  teams: TeamRunTotals[];
  total: RunTotals;
}

/**
 * The runs of every team (or of the named one), from each registered team's run journal
 * (`<workspace>/.fed/logs/runs.jsonl`) and, for the teams removed, from what their removal kept
 * (`.fed/removed-runs.jsonl`), with their totals: the federation's total is what its budget
 * (`agent.limits.federationUsd`) is checked against. `team` names a registered team, or a removed one when
 * none is registered under its id. Only journals on this machine are read: a team that works on another
 * machine (JetStream) counts there.
 */
export async function readFederationRuns(fed: Federation, options: { team?: string } = {}): Promise<RunsReport> {
  const registry = await fed.backend.registry.read();
  const removed = readRemovedRuns(fed.root);
  const named = options.team;
  const onlyRemoved = named !== undefined && !findTeam(registry, named) && removed.some((r) => r.team === named);
  const teams = onlyRemoved ? [] : named ? [getTeam(registry, named)] : registry.teams;
  const perTeam: PerTeam[] = teams.map((team) => ({ team: team.domainId, runs: readRunHistory(team.location) }));
  if (named === undefined || onlyRemoved) perTeam.push(...removedTeams(removed, perTeam, named));
  const runs = perTeam
    .flatMap(({ team, runs, removed }) =>
      runs.map((run) => ({ ...runRow(team, run), ...(removed ? { removed } : {}) })),
    )
    // Oldest first across teams; a stable sort keeps each journal's own order for equal times.
    .sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  return {
    runs,
    teams: perTeam.map(({ team, runs, removed }) => ({ team, ...(removed ? { removed } : {}), ...totalRuns(runs) })),
    total: totalRuns(perTeam.flatMap((t) => t.runs)),
  };
}

interface PerTeam {
  team: string;
  runs: LaunchRun[];
  removed?: true;
}

/**
 * The removed teams' runs, by team, in the order their removals kept them. A run a registered team's journal
 * still holds is counted there, once: its removal was refused after keeping it, and the team is still here.
 */
function removedTeams(removed: readonly RemovedRun[], registered: readonly PerTeam[], only?: string): PerTeam[] {
  const counted = new Set(registered.flatMap(({ team, runs }) => runs.map((run) => `${team}\0${run.runId}`)));
  const byTeam = new Map<string, PerTeam>();
  for (const { team, run } of removed) {
    if ((only !== undefined && team !== only) || counted.has(`${team}\0${run.runId}`)) continue;
    let entry = byTeam.get(team);
    if (!entry) byTeam.set(team, (entry = { team, runs: [], removed: true }));
    entry.runs.push(run);
  }
  return [...byTeam.values()];
}

function runRow(team: string, run: LaunchRun): RunRow {
  return {
    team,
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
