import type { AgentConfig, SandboxAllowance } from '../../../../core/schema/config.js';

/** A team's sandbox as its config sets it: on or off, what it allows beyond it, and the field that says so. */
export interface SandboxSetting {
  enabled: boolean;
  allow: readonly SandboxAllowance[];
  from: string;
}

/** The team's own `agent.teams.<id>.sandbox` over the federation's `agent.sandbox`. */
export function teamSandboxSetting(agent: AgentConfig, teamId: string): SandboxSetting {
  const own = agent.teams[teamId]?.sandbox;
  if (own === undefined) return { enabled: agent.sandbox, allow: [], from: 'agent.sandbox' };
  const from = `agent.teams.${teamId}.sandbox`;
  return typeof own === 'boolean' ? { enabled: own, allow: [], from } : { enabled: true, allow: own.allow, from };
}
