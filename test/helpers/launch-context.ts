/**
 * The launch context `fed launch` writes for a deliverable team's agent (src/core/schema/launch-context.ts),
 * built for tests and benches that run the agent without `fed launch`. No vitest here: the benches run
 * under plain node.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getTeam, type LaunchContext, readRegistry, workspacePaths } from 'fed/testing';
import { openFederation, viewLifecycle } from 'fed';

/** A deliverable team's launch context: its deliverable and learning log in `workspace`, no playbook. */
export function deliverableContext(fields: {
  team: string;
  root: string;
  workspace: string;
  codebase: string;
  mission: LaunchContext['mission'];
  state: string;
  launchedAt: string;
  fix?: LaunchContext['fix'];
}): LaunchContext {
  const { team, root, workspace, codebase, mission, state, launchedAt, fix } = fields;
  return {
    team,
    archetype: 'deliverable',
    root,
    workspace,
    codebase,
    mission,
    state,
    deliverable: 'deliverable.md',
    deliverablePath: join(workspace, 'deliverable.md'),
    playbookSkillPath: null,
    learningLogPath: workspacePaths(workspace).learningLog,
    launchedAt,
    ...(fix ? { fix } : {}),
  };
}

/**
 * Write the launch context of the federation's team `domain` (studying the root), with its lifecycle's
 * state and mission signal and the `mission` it was given, where the launcher writes it; its path.
 */
export async function writeLaunchContext(
  root: string,
  domain: string,
  mission: { subject: string; body: string },
): Promise<string> {
  const entry = getTeam(readRegistry(root), domain);
  const view = await viewLifecycle(openFederation(root), entry);
  const context = deliverableContext({
    team: domain,
    root,
    workspace: entry.location,
    codebase: root,
    mission: { signalId: view.mission?.signalId ?? 'none', ...mission },
    state: view.state,
    launchedAt: new Date().toISOString(),
  });
  const paths = workspacePaths(entry.location);
  mkdirSync(paths.launch, { recursive: true });
  writeFileSync(paths.launchContext, JSON.stringify(context));
  return paths.launchContext;
}
