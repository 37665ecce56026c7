import type { AgentLimits, AgentPresetName, FederationConfig } from '../../core/schema/config.js';
import { splitCommand } from '../../core/split-command.js';
import { choosePreset } from './presets/catalog.js';
import type { AgentCommandOptions } from './prepare/agent-command.js';

/** The per-run limits a team may set for itself (the federation's budget is not one team's). */
export const TEAM_LIMITS = ['maxTurns', 'maxCostUsd', 'maxMinutes'] as const;
type TeamLimit = (typeof TEAM_LIMITS)[number];

/** One effective setting of a team's agent and the config field it comes from, or how it was chosen. */
export interface Setting<T> {
  value: T;
  from: string;
}

/** A team's agent as its launches run it: every setting, each with where it comes from (`fed team show`). */
export interface TeamAgent {
  command: Setting<string>;
  preset: Setting<AgentPresetName>;
  model: Setting<string | undefined>;
  args: Setting<readonly string[]>;
  /** The CLI account its rate limits are kept under. */
  account: Setting<string>;
  limits: Record<TeamLimit, Setting<number | undefined>>;
}

/**
 * The team's agent: its entry in `agent.teams` over the federation's `agentCommand` and `agent`. The
 * federation's model, args and account belong to the federation's CLI: a team whose agent is another CLI
 * (another preset) does not take them — a claude model name means nothing to codex, and a rate limit of
 * one CLI's login says nothing of another's. The limits are the team's where it sets them, else the
 * federation's, one by one.
 */
export function teamAgent(config: FederationConfig, teamId: string): TeamAgent {
  const own = config.agent.teams[teamId] ?? {};
  const at = `agent.teams.${teamId}`;
  const federationPreset = presetOf(config.agentCommand, 'agentCommand', config.agent.preset);
  const command: Setting<string> = own.command
    ? { value: own.command, from: `${at}.command` }
    : { value: config.agentCommand, from: 'agentCommand' };
  const preset: Setting<AgentPresetName> = own.preset
    ? { value: own.preset, from: `${at}.preset` }
    : own.command
      ? { value: presetOf(own.command, `${at}.command`, undefined), from: `the program name of ${at}.command` }
      : { value: federationPreset, from: config.agent.preset ? 'agent.preset' : 'the program name of agentCommand' };
  const sameCli = preset.value === federationPreset;
  const inherited = <T>(field: 'model' | 'args' | 'account', value: T | undefined, fallback: Setting<T>) =>
    sameCli && value !== undefined ? { value, from: `agent.${field}` } : fallback;
  const notInherited = sameCli ? 'not set' : `not set; the federation's is for ${federationPreset}`;
  return {
    command,
    preset,
    model: own.model
      ? { value: own.model, from: `${at}.model` }
      : inherited('model', config.agent.model, { value: undefined, from: notInherited }),
    args: own.args
      ? { value: own.args, from: `${at}.args` }
      : inherited('args', config.agent.args.length ? config.agent.args : undefined, { value: [], from: notInherited }),
    account: own.account
      ? { value: own.account, from: `${at}.account` }
      : inherited('account', config.agent.account, { value: preset.value, from: "the preset's name" }),
    limits: teamLimits(config, teamId),
  };
}

/** The team's per-run limits, each its own where its entry sets it, else the federation's. */
export function teamLimits(config: FederationConfig, teamId: string): TeamAgent['limits'] {
  const own = config.agent.teams[teamId]?.limits;
  return Object.fromEntries(
    TEAM_LIMITS.map((limit) => {
      const mine = own?.[limit];
      const federation = config.agent.limits[limit];
      const setting: Setting<number | undefined> =
        mine !== undefined
          ? { value: mine, from: `agent.teams.${teamId}.limits.${limit}` }
          : { value: federation, from: federation === undefined ? 'not set' : `agent.limits.${limit}` };
      return [limit, setting];
    }),
  ) as TeamAgent['limits'];
}

/** The limits a run of the team is held to, as `agent.limits` holds them: its own, and the federation's budget. */
export function teamLimitValues(config: FederationConfig, teamId: string): AgentLimits {
  const limits: AgentLimits = {};
  const own = teamLimits(config, teamId);
  for (const limit of TEAM_LIMITS) if (own[limit].value !== undefined) limits[limit] = own[limit].value;
  if (config.agent.limits.federationUsd !== undefined) limits.federationUsd = config.agent.limits.federationUsd;
  return limits;
}

/**
 * The config one launch of the team runs with: the team's agent in the place of the federation's
 * (`agentCommand`, `agent.preset|model|args|account|limits`), so everything a launch reads of the agent
 * — the command, the preset's flags, the limits it enforces, the account it pauses — is the team's. The
 * federation's budget (`agent.limits.federationUsd`) stays the federation's.
 */
export function teamLaunchConfig(config: FederationConfig, teamId: string): FederationConfig {
  const agent = teamAgent(config, teamId);
  return {
    ...config,
    agentCommand: agent.command.value,
    agent: {
      ...config.agent,
      // Where the config sets none, the preset and the account are left to be chosen from the command the
      // launch runs — a `--agent` given to it included — as they are for the federation's agent.
      preset: configured(agent.preset),
      model: agent.model.value,
      args: [...agent.args.value],
      account: configured(agent.account),
      limits: teamLimitValues(config, teamId),
    },
  };
}

/**
 * The options one launch of the team runs with: its config (teamLaunchConfig), and where that config's
 * agent command was set, so that a command that cannot run is fixed where it was set.
 */
export function teamLaunchOptions<T extends AgentCommandOptions>(options: T, teamId: string): T {
  return {
    ...options,
    config: teamLaunchConfig(options.config, teamId),
    agentCommandFrom: teamAgent(options.config, teamId).command.from,
  };
}

/** The setting's value when a config field sets it (`agent.…`), undefined when fed chose it. */
function configured<T>(setting: Setting<T>): T | undefined {
  return setting.from.startsWith('agent.') ? setting.value : undefined;
}

function presetOf(command: string, what: string, configured: AgentPresetName | undefined): AgentPresetName {
  return choosePreset(splitCommand(command, what)[0] ?? '', configured).name;
}
