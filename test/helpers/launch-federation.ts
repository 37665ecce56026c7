import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FederationConfig, initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { loadConfig } from 'fed/testing';
import { typescriptProject } from './fixture-repo.js';
import { tempDir } from './temp-dir.js';

/** `node <fixture agent>` as an agent command (quoted for splitCommand). */
export function fakeAgent(name: string): string {
  const script = fileURLToPath(new URL(`../fixtures/agents/${name}.mjs`, import.meta.url));
  return `'${process.execPath}' '${script}'`;
}

/**
 * A federation in a git repository (so the read-only guard compares against git) with one deliverable
 * team, `docs`, that has its mission waiting in the inbox.
 */
export async function federationWithMission(
  options: { mission?: boolean } = {},
): Promise<{ root: string; config: FederationConfig }> {
  const root = tempDir();
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  writeFileSync(join(root, 'README.md'), '# project\n');
  initFederation(root, {}, {});
  git('add', '-A');
  git('commit', '-qm', 'project');
  await onboardTeam(openFederation(root), { domain: 'docs' });
  if (options.mission ?? true) {
    await sendSignal(openFederation(root), {
      to: 'docs',
      type: 'directive',
      subject: 'Document the project',
      body: 'Write deliverable.md',
    });
  }
  return { root, config: loadConfig(root, {}).config };
}

/**
 * A file the test and the `docs` team's agent share (a fake CLI's call log, its pid): in the team's
 * workspace, which a sandboxed agent may write — its /tmp is its own, the test's temp dirs hidden from it.
 */
export function inDocsWorkspace(root: string, name: string): string {
  return join(root, '.fed', 'teams', 'docs', name);
}

/**
 * A federation over a small TypeScript project (typescriptProject) with `config`, whose `teams` each have
 * the built-in agent's survey mission waiting: what a `fed run` of the built-in agent is tested on.
 */
export async function surveyFederation(teams: readonly string[], config: object): Promise<string> {
  const root = typescriptProject(tempDir());
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  writeFileSync(join(root, 'federate.config.json'), JSON.stringify(config));
  for (const domain of teams) {
    await onboardTeam(openFederation(root), { domain }, { durable: false });
    await sendSignal(
      openFederation(root),
      { to: domain, type: 'directive', subject: 'Survey the codebase', body: 'Read-only study.' },
      { durable: false },
    );
  }
  return root;
}
