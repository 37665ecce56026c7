import { hostname } from 'node:os';
import type { FederationConfig } from './schema/config.js';

/**
 * This machine's name among the hosts serving the federation: `serve.hostName` from federate.config.json,
 * else the system's host name. Onboarding records it as the team's `host` (its placement) and `fed serve`
 * announces itself under it, so the teams onboarded in a working directory are served from there.
 */
export function thisHostName(config: Pick<FederationConfig, 'serve'>): string {
  return config.serve?.hostName ?? hostname();
}
