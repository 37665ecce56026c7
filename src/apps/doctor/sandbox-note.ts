import { statusOf } from '../../core/find-team.js';
import type { Registry } from '../../core/schema/registry.js';
import { archetypeFor } from '../../engine/archetypes/catalog.js';
import type { Federation } from '../../engine/context.js';
import { findBubblewrap } from '../launch/prepare/sandbox/sandbox.js';
import { teamSandboxSetting } from '../launch/prepare/sandbox/sandbox-setting.js';

/**
 * Which teams' agents run without fed's sandbox, said plainly (docs/threat-model.md): as the user, with
 * the user's home, credentials and network — so they can change anything the user can. A team whose
 * sandbox is off (`agent.sandbox`, or its own `agent.teams.<id>.sandbox`), and every team when bubblewrap
 * cannot build the sandbox here. Undefined when every active team's agent is sandboxed.
 */
export function unsandboxedNote(fed: Federation, registry: Registry): string | undefined {
  const teams = launchedTeams(fed, registry);
  const off = teams.filter((team) => !team.setting.enabled);
  const on = teams.filter((team) => team.setting.enabled);
  const bwrap = on.length ? findBubblewrap(fed.env) : undefined;
  const missing = bwrap && 'missing' in bwrap ? bwrap.missing : undefined;
  const unsandboxed = [...off, ...(missing ? on : [])].map((team) => team.id).sort();
  if (unsandboxed.length === 0) return undefined;
  const user = `uid ${process.getuid?.() ?? '?'}${process.getuid?.() === 0 ? ', root' : ''}`;
  const fields = [...new Set(off.map((team) => team.setting.from))];
  return `the agents of ${unsandboxed.join(', ')} run without the sandbox: as you (${user}), with your home (${fed.env.HOME ?? 'unset'}), your credentials and this machine's network — they can change anything you can (${[
    ...fields.map((field) => `${field} is false`),
    ...(missing ? [missing] : []),
  ].join('; ')}); see docs/threat-model.md`;
}

/**
 * Which sandboxed teams' agents may do more than the sandbox lets one (`agent.teams.<id>.sandbox.allow`),
 * and what that gives up; undefined when none may.
 */
export function allowancesNote(fed: Federation, registry: Registry): string | undefined {
  const allowed = launchedTeams(fed, registry)
    .filter(({ setting }) => setting.enabled && setting.allow.includes('unix-sockets'))
    .map((team) => team.id)
    .sort();
  if (allowed.length === 0) return undefined;
  return `the sandboxes of ${allowed.join(', ')} allow unix-sockets (agent.teams.<team>.sandbox.allow): their agents reach every host Unix socket they can see, Docker's among them — root on this machine; see docs/threat-model.md`;
}

/** The active teams whose agents fed launches (a custom archetype's has none), with their sandbox settings. */
function launchedTeams(fed: Federation, registry: Registry) {
  return registry.teams.flatMap((team) =>
    statusOf(team) !== 'archived' && archetypeFor(team.archetypeId)
      ? [{ id: team.domainId, setting: teamSandboxSetting(fed.config.agent, team.domainId) }]
      : [],
  );
}
