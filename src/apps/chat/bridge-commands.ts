import { v5 as uuidv5 } from 'uuid';
import { lifecycleFor } from '../../engine/archetypes/catalog.js';
import { viewLifecycle } from '../../engine/actors/lifecycle-view.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { loadTeamLifecycle } from '../../engine/actors/team-lifecycle.js';
import { stateOf } from '../../engine/actors/state-of.js';
import { setTeamStatus } from '../../engine/actors/team-status-command.js';
import { InvalidInputError } from '../../core/errors.js';
import { runMonitorCycle } from '../monitor/monitor-cycle.js';
import { getTeam, statusOf } from '../../core/find-team.js';
import { META } from '../../core/schema/common.js';
import type { FederationConfig } from '../../core/schema/config.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import { SIGNAL_TYPES } from '../../core/schema/signal.js';
import { sendSignal } from '../../engine/messaging/send-signal.js';
import type { AddressedCommand } from './chat-text.js';
import { renderStatusSummary } from './status-summary.js';
import type { Federation } from '../../engine/context.js';

export interface BridgeCommandContext {
  fed: Federation;
  config: FederationConfig;
  /** Id of the chat message the command came from. */
  messageId: string;
  /** Starts a launch in the background; its outcome is posted when the agent is done. */
  startLaunch: (team: string) => void;
}

/** Pending signals named in `status <team>`; the rest are counted. */
const MAX_PENDING_SHOWN = 5;

/** Namespace of the ids of signals sent from chat (a fixed, random UUID). */
const CHAT_SIGNAL_NAMESPACE = '3b9e6a52-8f0d-4c1e-a7b4-5d2f9c8e1a63';

export function bridgeHelp(federationName: string): string {
  const at = `@${federationName}`;
  return [
    `commands — write ${at} <command>:`,
    `${at} status [<team>] — the teams and their lifecycles, or one team in detail`,
    `${at} monitor — run a monitoring cycle and summarise it`,
    `${at} send <team|meta> <${SIGNAL_TYPES.join('|')}> <subject> — send a signal from meta; the lines below the command are its body`,
    `${at} pause <team> · ${at} resume <team>`,
    `${at} launch <team> — run the team's agent; the outcome is posted when it finishes`,
  ].join('\n');
}

/**
 * Run one chat command and return the reply. A refused or failing command throws (the bridge replies with
 * the error); an unknown one is answered with help. A command that runs again after a crash does no harm:
 * `send` carries an id derived from the chat message, so its retry delivers nothing twice; pause and
 * resume are refused once done; launch is refused while the team runs.
 */
export async function runBridgeCommand(command: AddressedCommand, ctx: BridgeCommandContext): Promise<string> {
  const name = ctx.config.federationName ?? 'fed';
  const [verb = '', ...args] = command.line.split(/\s+/).filter(Boolean);
  const team = () => {
    if (!args[0]) throw new InvalidInputError(`which team? write @${name} ${verb.toLowerCase()} <team>`);
    return args[0];
  };
  // What the bridge runs for a chat user: these verbs and nothing else, each through the library — never a shell.
  switch (verb.toLowerCase()) {
    case 'status':
      return args[0] ? teamStatus(ctx.fed, getTeam(await ctx.fed.backend.registry.read(), args[0])) : teamList(ctx.fed);
    case 'monitor':
      return renderStatusSummary(await runMonitorCycle(ctx.fed, { config: ctx.config }));
    case 'send':
      return send(command, ctx, name);
    case 'pause':
    case 'resume': {
      const change = await setTeamStatus(ctx.fed, team(), {
        type: verb.toLowerCase() === 'pause' ? 'PAUSE' : 'RESUME',
      });
      return `${change.team.domainId}: ${change.from} → ${change.to}`;
    }
    case 'launch': {
      const entry = getTeam(await ctx.fed.backend.registry.read(), team());
      ctx.startLaunch(entry.domainId);
      return `launching ${entry.domainId}; the outcome is posted here when its agent finishes`;
    }
    case 'help':
    case '':
      return bridgeHelp(name);
    default:
      return `unknown command "${verb}"; ${bridgeHelp(name)}`;
  }
}

async function lifecycleState(backend: FederationBackend, team: RegistryEntry): Promise<string> {
  if (!lifecycleFor(team.archetypeId)) return 'no lifecycle';
  try {
    return stateOf((await loadTeamLifecycle(team, backend.lifecycles)).snapshot);
  } catch (error) {
    return `lifecycle unreadable: ${(error as Error).message}`;
  }
}

async function teamList(fed: Federation): Promise<string> {
  const { backend } = fed;
  const teams = (await backend.registry.read()).teams;
  if (teams.length === 0) return 'no teams registered yet';
  const lines = [`${teams.length} team${teams.length === 1 ? '' : 's'}:`];
  for (const t of teams)
    lines.push(`- ${t.domainId} (${t.archetypeId}, ${statusOf(t)}): ${await lifecycleState(backend, t)}`);
  return lines.join('\n');
}

async function teamStatus(fed: Federation, team: RegistryEntry): Promise<string> {
  const lines = [`${team.domainId} (${team.archetypeId}, ${statusOf(team)}), last active ${team.lastActive ?? '-'}`];
  if (!lifecycleFor(team.archetypeId)) return [...lines, 'lifecycle: none'].join('\n');
  const view = await viewLifecycle(fed, team);
  lines.push(`lifecycle: ${view.machine}, ${view.state}${view.since ? ` since ${view.since}` : ''}`);
  lines.push(`mission: ${view.mission ? `"${view.mission.subject}"` : 'none yet'}`);
  if (view.pausedFrom) lines.push(`resumes to: ${view.pausedFrom}`);
  if (view.failure) lines.push(`failure: ${view.failure.reason} (in ${view.failure.state})`);
  const pending = view.pending.slice(0, MAX_PENDING_SHOWN).map((p) => `${p.type} "${p.subject}" from ${p.from}`);
  if (view.pending.length > MAX_PENDING_SHOWN) pending.push(`and ${view.pending.length - MAX_PENDING_SHOWN} more`);
  lines.push(`pending signals: ${pending.length ? pending.join('; ') : 'none'}`);
  return lines.join('\n');
}

async function send(command: AddressedCommand, ctx: BridgeCommandContext, name: string): Promise<string> {
  const match = /^\S+\s+(\S+)\s+(\S+)\s+(.+)$/.exec(command.line);
  if (!match)
    throw new InvalidInputError(
      `send needs a recipient, a type and a subject: @${name} send <team|meta> <${SIGNAL_TYPES.join('|')}> <subject>`,
    );
  const [, to = '', type = '', subject = ''] = match;
  const result = await sendSignal(ctx.fed, {
    from: META,
    to,
    type: type.toLowerCase(),
    subject: subject.replace(/^"(.*)"$/, '$1'),
    body: command.body,
    id: uuidv5(ctx.messageId, CHAT_SIGNAL_NAMESPACE),
  });
  const what = `${result.message.type} "${result.message.subject}" to ${result.message.to}`;
  return result.delivered ? `sent ${what} (${result.file})` : `${what} was already sent (${result.file})`;
}
