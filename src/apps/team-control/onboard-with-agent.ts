import { teamAgentConfigSchema, type TeamAgentConfig } from '../../core/schema/config.js';
import { parseGiven } from '../../core/schema/problems.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { onboardTeam, type OnboardOptions, type OnboardRequest } from '../../engine/registry/onboard.js';
import { checkConfigEdit, editConfigFile, type ConfigEdit } from '../../infra/config/edit-config.js';

/** What a team's agent may be given at onboarding: its entry in `agent.teams` but the network policy. */
export type TeamAgentSettings = Omit<TeamAgentConfig, 'network'>;

export interface OnboardWithAgentOptions extends OnboardOptions {
  /**
   * What the caller calls each setting (`command` → `--agent`, `limits.maxTurns` → `--max-turns`), for the
   * refusal of a bad one; by default its field of the config (`agent.teams.<id>.command`).
   */
  settingNames?: Readonly<Record<string, string>>;
}

/**
 * `fed team onboard … --agent --model --max-turns …` (and the dashboard's onboarding form): the team
 * onboarded with its own agent and limits, kept in federate.config.json under `agent.teams.<id>`. The
 * entry is checked against the config first and written only once the team is onboarded, so a refused
 * onboarding (a duplicate, a bad name) or a refused entry leaves both the registry and the config as they
 * were. Without settings it is the plain onboarding.
 */
export async function onboardTeamWithAgent(
  fed: Federation,
  request: OnboardRequest,
  settings: TeamAgentSettings = {},
  options: OnboardWithAgentOptions = {},
): Promise<RegistryEntry> {
  // Limits come as an object of what was given (the CLI passes every flag, most undefined): it counts only
  // for what it holds, so a plain onboarding leaves the config as it is.
  const { limits, ...agent } = settings;
  const given = Object.keys(defined(agent)).length > 0 || Object.keys(defined(limits ?? {})).length > 0;
  const teamId = request.domainId ?? request.domain;
  if (given) {
    // Bad settings are the caller's input, said as such; the config as edited is checked whole after.
    parseGiven(
      teamAgentConfigSchema,
      { ...defined(agent), limits: defined(limits ?? {}) },
      {
        ...Object.fromEntries(SETTING_PATHS.map((path) => [path, `agent.teams.${teamId}.${path}`])),
        ...options.settingNames,
      },
    );
    checkConfigEdit(fed.root, setTeamEntry(teamId, settings));
  }
  const entry = await onboardTeam(fed, request, options);
  if (given) await editConfigFile(fed.root, setTeamEntry(entry.domainId, settings));
  return entry;
}

/** The settings' paths in a team's entry, as a bad one's problem names it. */
const SETTING_PATHS = [
  'command',
  'preset',
  'model',
  'args',
  'account',
  ...['maxTurns', 'maxCostUsd', 'maxMinutes'].map((limit) => `limits.${limit}`),
];

/** The edit: the team's entry in `agent.teams` with these settings over what it had (its network policy kept). */
function setTeamEntry(teamId: string, settings: TeamAgentSettings): ConfigEdit {
  return (raw) => {
    const agent = objectAt(raw, 'agent');
    const teams = objectAt(agent, 'teams');
    const entry = objectAt(teams, teamId);
    const { limits, ...agentSettings } = settings;
    const given = defined(limits ?? {});
    teams[teamId] = {
      ...entry,
      ...defined(agentSettings),
      ...(Object.keys(given).length ? { limits: { ...objectAt(entry, 'limits'), ...given } } : {}),
    };
  };
}

/** The settings given: a field left out (undefined) keeps what the entry had. */
function defined<T extends object>(settings: T): Partial<T> {
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** The object at `key`, made when absent; what is not an object is left for the schema to refuse. */
function objectAt(parent: Record<string, unknown>, key: string): Record<string, unknown> {
  parent[key] ??= {};
  return parent[key] as Record<string, unknown>;
}
