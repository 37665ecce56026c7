import { statusOf } from '../../core/find-team.js';
import type { Registry } from '../../core/schema/registry.js';
import { archetypeFor } from '../../engine/archetypes/catalog.js';
import type { Federation } from '../../engine/context.js';
import { findBubblewrap } from '../launch/prepare/sandbox/sandbox.js';

/**
 * Which teams' agents run without fed's sandbox, said plainly (docs/threat-model.md): as the user, with
 * the user's home — so they can change anything the user can. Coding teams always (they edit their
 * checkout); the others when `agent.sandbox` is false or bubblewrap cannot build the sandbox here.
 * Undefined when every active team's agent is sandboxed.
 */
export function unsandboxedNote(fed: Federation, registry: Registry): string | undefined {
  // A team of a custom archetype has no agent fed launches (fed launch refuses it).
  const teams = registry.teams.flatMap((team) => {
    const archetype = statusOf(team) === 'archived' ? undefined : archetypeFor(team.archetypeId);
    return archetype ? [{ id: team.domainId, readOnlyCodebase: archetype.readOnlyCodebase }] : [];
  });
  const readOnly = teams.filter((team) => team.readOnlyCodebase).map((team) => team.id);
  const coding = teams.filter((team) => !team.readOnlyCodebase).map((team) => team.id);
  const bwrap = fed.config.agent.sandbox && readOnly.length ? findBubblewrap(fed.env) : undefined;
  const why = !fed.config.agent.sandbox
    ? 'agent.sandbox is false'
    : bwrap && 'missing' in bwrap
      ? bwrap.missing
      : undefined;
  const unsandboxed = [...coding, ...(why ? readOnly : [])];
  if (unsandboxed.length === 0) return undefined;
  const user = `uid ${process.getuid?.() ?? '?'}${process.getuid?.() === 0 ? ', root' : ''}`;
  return `the agents of ${unsandboxed.join(', ')} run without the sandbox: as you (${user}), with your home (${fed.env.HOME ?? 'unset'}) — they can change anything you can (${[
    ...(coding.length ? ['coding teams edit their checkout, always unsandboxed'] : []),
    ...(why ? [why] : []),
  ].join('; ')}); see docs/threat-model.md`;
}
