import { Command, Option } from 'commander';
import { describeRun } from '../describe-run.js';
import { teamDetail } from '../../apps/monitor/team-detail.js';
import { describeTotals } from '../../apps/runs/render-runs.js';
import type { TeamStatusEvent } from '../../../machines/team-status.machine.js';
import { InvalidInputError } from '../../core/errors.js';
import { statusOf } from '../../core/find-team.js';
import {
  archivalMessage,
  removalMessage,
  retryMessage,
  statusChangeMessage,
} from '../../apps/team-control/action-messages.js';
import { TEAM_STATUS_COMMANDS } from '../../engine/registry/team-status.js';
import type { LifecycleView } from '../../engine/actors/lifecycle-view.js';
import { PLACEMENT_TYPES, type PlacementType, type RegistryEntry } from '../../core/schema/registry.js';
import { federationContext, printJson, type CliIo } from '../io.js';
import { registerTeamReview } from './team-review.js';
import { registerTeamLearnings } from './team-learnings.js';
import { renderFields, renderTable } from '../../core/table.js';
import { archetypes, DEFAULT_ARCHETYPE } from '../../engine/archetypes/catalog.js';
import { AGENT_PRESETS, type AgentPresetName } from '../../core/schema/config.js';
import type { Setting, TeamAgent } from '../../apps/launch/team-agent.js';
import { oneOf, positiveInteger, positiveNumber } from '../option-parsers.js';

function entryFields(entry: RegistryEntry): [string, string][] {
  return [
    ['domain', entry.domain],
    ['id', entry.domainId],
    ['archetype', entry.archetypeId],
    ['placement', entry.placementType],
    ['status', statusOf(entry)],
    ['location', entry.location],
    ['onboarded', entry.onboardedAt],
    ['last active', entry.lastActive ?? '-'],
  ];
}

/** The team's agent as its launches run it, each setting with where it comes from. */
function agentFields(agent: TeamAgent): [string, string][] {
  const field = (label: string, { value, from }: Setting<unknown>, shown = (v: NonNullable<unknown>) => String(v)) => {
    const set = value !== undefined && !(Array.isArray(value) && value.length === 0);
    return [label, set ? `${shown(value!)} (${from})` : `- (${from})`] as [string, string];
  };
  return [
    field('agent', agent.command),
    field('preset', agent.preset),
    field('model', agent.model),
    field('args', agent.args, (args) => (args as string[]).join(' ')),
    field('account', agent.account),
    field('max turns', agent.limits.maxTurns),
    field('max cost', agent.limits.maxCostUsd, (usd) => `$${String(usd)}`),
    field('max minutes', agent.limits.maxMinutes),
  ];
}

/**
 * What only one subcommand uses (onboarding, retrying, removing, a status change and what archiving
 * returns) is loaded by it: `fed team show`, which agents and people run often, initialises none of it.
 */
export function registerTeam(program: Command, io: CliIo): void {
  const team = program
    .command('team')
    .description('onboard teams, manage their registry status, retry and remove them, review and merge coding teams');
  registerOnboard(team, io);
  registerList(team, io);
  registerShow(team, io);
  registerTeamReview(team, io);
  registerTeamLearnings(team, io);
  registerRetry(team, io);
  registerRemove(team, io);
  registerMove(team, io);
  registerStatusChanges(team, io);
}

function registerOnboard(team: Command, io: CliIo): void {
  team
    .command('onboard')
    .description('register a new team and create its workspace, with its own agent and limits if given')
    .argument('<domain>', 'team name: lowercase letters, digits and hyphens')
    .option('--id <domainId>', 'unique team id (default: the domain)')
    .option(
      '--archetype <id>',
      `archetype: ${archetypes.map((archetype) => archetype.id).join(', ')} or a custom one`,
      DEFAULT_ARCHETYPE,
    )
    .addOption(new Option('--placement <type>', 'workspace placement').choices(PLACEMENT_TYPES).default('directory'))
    .option(
      '--any-host',
      'unplaced: any host serving the federation runs it, whichever has free capacity (JetStream; a worktree team needs serve.pushTeamBranches)',
    )
    .option(
      '--agent <command>',
      "the team's own agent command instead of agentCommand (kept in federate.config.json, agent.teams.<id>.command)",
    )
    .option(
      '--preset <name>',
      `how to drive the team's agent CLI: ${AGENT_PRESETS.join(', ')} (default: from its program name)`,
      oneOf(AGENT_PRESETS),
    )
    .option('--model <model>', "the team's model, passed with its CLI's model flag")
    .option('--max-turns <n>', 'at most this many agent turns per run of the team', positiveInteger('turns'))
    .option('--max-cost-usd <usd>', 'at most this cost per run of the team, in USD', positiveNumber('USD'))
    .option('--max-minutes <n>', 'at most this wall time per run of the team, in minutes', positiveNumber('minutes'))
    .option('--json', 'print the registry entry as JSON')
    .action(async (domain: string, options: OnboardFlags, command: Command) => {
      const ctx = federationContext(command, io);
      const { onboardTeamWithAgent } = await import('../../apps/team-control/onboard-with-agent.js');
      const entry = await onboardTeamWithAgent(
        ctx.fed,
        {
          domain,
          domainId: options.id,
          archetypeId: options.archetype,
          placementType: options.placement,
          anyHost: options.anyHost,
        },
        {
          command: options.agent,
          preset: options.preset,
          model: options.model,
          limits: { maxTurns: options.maxTurns, maxCostUsd: options.maxCostUsd, maxMinutes: options.maxMinutes },
        },
        { onWarning: (text) => io.stderr(`warning: ${text}\n`), settingNames: ONBOARD_SETTING_OPTIONS },
      );
      if (options.json) return printJson(io, entry);
      io.stdout(`onboarded ${entry.domainId} (${entry.archetypeId}, ${entry.placementType}) at ${entry.location}\n`);
    });
}

/** The option that gives each setting of the team's agent, for the refusal of a bad one. */
const ONBOARD_SETTING_OPTIONS = {
  command: '--agent',
  preset: '--preset',
  model: '--model',
  'limits.maxTurns': '--max-turns',
  'limits.maxCostUsd': '--max-cost-usd',
  'limits.maxMinutes': '--max-minutes',
};

interface OnboardFlags {
  id?: string;
  archetype: string;
  placement: PlacementType;
  anyHost?: boolean;
  agent?: string;
  preset?: AgentPresetName;
  model?: string;
  maxTurns?: number;
  maxCostUsd?: number;
  maxMinutes?: number;
  json?: boolean;
}

function registerList(team: Command, io: CliIo): void {
  team
    .command('list')
    .description('list registered teams')
    .option('--json', 'print the registry teams as JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const registry = await ctx.fed.backend.registry.read();
      if (options.json) return printJson(io, registry.teams);
      if (registry.teams.length === 0) return io.stdout('no teams yet; onboard one with: fed team onboard <domain>\n');
      io.stdout(
        renderTable(
          ['ID', 'DOMAIN', 'ARCHETYPE', 'PLACEMENT', 'STATUS', 'LAST ACTIVE', 'LOCATION'],
          registry.teams.map((t) => [
            t.domainId,
            t.domain,
            t.archetypeId,
            t.placementType,
            statusOf(t),
            t.lastActive ?? '-',
            t.location,
          ]),
        ),
      );
    });
}

function registerShow(team: Command, io: CliIo): void {
  team
    .command('show')
    .description('show one team and its lifecycle (default: the team whose workspace you are in)')
    .argument('[team]', 'team id or domain')
    .option('--json', 'print the registry entry as JSON')
    .action(async (name: string | undefined, options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const wanted = name ?? ctx.team;
      if (!wanted)
        throw new InvalidInputError('which team? pass its id (fed team show <team>) or run this inside its workspace');
      const detail = await teamDetail(ctx.fed, wanted);
      // Loaded here: the agent presets are not needed by the other subcommands.
      const { teamAgent } = await import('../../apps/launch/team-agent.js');
      const agent = teamAgent(ctx.fed.config, detail.domainId);
      if (options.json) return printJson(io, { ...detail, agent });
      const { lifecycle, lastRun, runTotals, ...entry } = detail;
      io.stdout(
        renderFields([
          ...entryFields(entry),
          ...agentFields(agent),
          ...(lifecycle
            ? lifecycleFields(lifecycle)
            : [['lifecycle', `none (archetype ${entry.archetypeId} has no lifecycle machine)`] as [string, string]]),
          // A team its launch paused at a rate limit says when `fed run` resumes it.
          ...(statusOf(entry) === 'paused' && lastRun?.resumeAt && lastRun.stateAfter === 'paused'
            ? [['paused', `${lastRun.outcome}, resumes at ${lastRun.resumeAt}`] as [string, string]]
            : []),
          ['last run', lastRun ? `${describeRun(lastRun)}, ended ${lastRun.endedAt}` : 'none'],
          ['runs', `${describeTotals(runTotals)}${runTotals.runs ? ` (each: fed runs --team ${entry.domainId})` : ''}`],
        ]),
      );
      if (lifecycle?.recent.length) {
        io.stdout(
          `\nrecent transitions:\n${lifecycle.recent.map((l) => `  ${l.at}  ${l.from} → ${l.to}  ${l.event}${l.note ? `  (${l.note})` : ''}\n`).join('')}`,
        );
      }
    });
}

function registerRetry(team: Command, io: CliIo): void {
  team
    .command('retry')
    .description(
      'start a failed team again from the start of its lifecycle with the same mission (earlier runs are kept, numbered)',
    )
    .argument('<team>', 'team id or domain')
    .option('--json', 'print the new run as JSON')
    .action(async (name: string, options: { json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const { retryTeam } = await import('../../apps/run/team-retry.js');
      const run = await retryTeam(ctx.fed, name, ctx.config.config);
      if (options.json) return printJson(io, run);
      io.stdout(`${retryMessage(run)}\n`);
    });
}

function registerRemove(team: Command, io: CliIo): void {
  team
    .command('remove')
    .description(
      'remove an archived team: its workspace (worktree and branch too), its registry entry, its agent settings and its schedules; the journal keeps the record',
    )
    .argument('<team>', 'team id or domain')
    .option('--force', "also remove a worktree team's branch whose commits are not merged")
    .option('--json', 'print the removal record as JSON')
    .action(async (name: string, options: { force?: boolean; json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const { removeTeam } = await import('../../engine/registry/remove-team.js');
      const removed = await removeTeam(ctx.fed, name, { force: options.force });
      if (options.json) return printJson(io, removed);
      io.stdout(`${removalMessage(removed)}\n`);
    });
}

function registerMove(team: Command, io: CliIo): void {
  team
    .command('move')
    .description(
      "place a team on another host (JetStream): that host's fed serve makes its workspace and resumes it from its lifecycle state",
    )
    .argument('<team>', 'team id or domain')
    .requiredOption('--to <host>', 'the host to place it on, an alive one (fed hosts lists them)')
    .option('--json', 'print the move as JSON')
    .action(async (name: string, options: { to: string; json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const { moveTeam } = await import('../../apps/hosts/move-team.js');
      const moved = await moveTeam(ctx.fed, name, options.to);
      if (options.json) return printJson(io, moved);
      io.stdout(
        moved.moved
          ? `moved ${moved.team} from host ${moved.from ?? '(none recorded)'} to ${moved.to}: its server there resumes it in ${moved.location}\n`
          : `${moved.team} is placed on ${moved.to} already\n`,
      );
    });
}

/** One subcommand per registry status change (`fed team pause`, `resume`, `archive`, …). */
function registerStatusChanges(team: Command, io: CliIo): void {
  for (const [event, verb] of Object.entries(TEAM_STATUS_COMMANDS) as [TeamStatusEvent['type'], string][]) {
    team
      .command(verb)
      .description(`${verb} a team (registry status: ${describeEvent(event)})`)
      .argument('<team>', 'team id or domain')
      .option('--json', 'print the status change as JSON')
      .action(async (name: string, options: { json?: boolean }, command: Command) => {
        const ctx = federationContext(command, io);
        if (event === 'ARCHIVE') {
          const { archiveTeam } = await import('../../apps/team-control/archive-team.js');
          const archived = await archiveTeam(ctx.fed, name);
          for (const warning of archived.warnings) io.stderr(`warning: ${warning}\n`);
          const { warnings: _, ...result } = archived;
          if (options.json) return printJson(io, result);
          return io.stdout(`${archivalMessage(archived)}\n`);
        }
        const { setTeamStatus } = await import('../../engine/actors/team-status-command.js');
        const change = await setTeamStatus(ctx.fed, name, { type: event });
        const summary = { team: change.team.domainId, from: change.from, to: change.to };
        if (options.json) return printJson(io, summary);
        io.stdout(`${statusChangeMessage(summary)}\n`);
      });
  }
}

function lifecycleFields(view: LifecycleView): [string, string][] {
  const fields: [string, string][] = [
    ['lifecycle', `${view.machine} v${view.machineVersion}`],
    ['state', view.since ? `${view.state} since ${view.since}` : view.state],
    ['mission', view.mission?.subject ?? noMission(view)],
  ];
  if (view.pausedFrom) fields.push(['resumes to', view.pausedFrom]);
  if (view.failure) fields.push(['failure', `${view.failure.reason} (in ${view.failure.state})`]);
  fields.push([
    'pending',
    view.pending.length ? view.pending.map((p) => `${p.type} "${p.subject}" from ${p.from}`).join('; ') : 'none',
  ]);
  return fields;
}

/**
 * A team without a mission: the directive that becomes it when the team next runs (a failed one's new run,
 * which fed run does not start: fed team retry), else how to send one.
 */
function noMission(view: LifecycleView): string {
  const next =
    view.state === 'failed' ? 'a retry starts its new run: fed team retry <team>' : 'the team next runs: fed run';
  return view.nextMission
    ? `- (none yet: the directive "${view.nextMission.subject}" becomes it when ${next})`
    : '- (none yet: fed signal send --to <team> --type directive --subject <mission>)';
}

function describeEvent(event: TeamStatusEvent['type']): string {
  return { PAUSE: 'active → paused', RESUME: 'paused → active', ARCHIVE: 'active|paused → archived, final' }[event];
}
