/**
 * `.fed/logs/agent.log`: what a team's agents wrote, launch after launch. Each launch starts with a header
 * line, `=== fed launch <ISO time> ===`, which is how the monitor finds the last launch's lines.
 */
export const AGENT_LOG_HEADER_PREFIX = '=== fed launch ';

export function agentLogHeader(at: Date): string {
  return `${AGENT_LOG_HEADER_PREFIX}${at.toISOString()} ===`;
}
