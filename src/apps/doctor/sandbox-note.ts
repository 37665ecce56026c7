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
  // A team of a custom archetype has no agent fed launches (fed launch refuses it).
  const teams = registry.teams.flatMap((team) =>
    statusOf(team) !== 'archived' && archetypeFor(team.archetypeId)
      ? [{ id: team.domainId, setting: teamSandboxSetting(fed.config.agent, team.domainId) }]
      : [],
  );
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
