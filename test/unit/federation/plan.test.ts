import { describe, expect, it } from 'vitest';
import { applyPlan, initFederation, listSignals, proposePlan, viewLifecycle } from '../../../src/index.js';
import { readRegistry } from '../../../src/adapters/file/registry-file.js';
import { getTeam } from '../../../src/core/find-team.js';
import { typescriptProject, writeTree } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { openFederation } from '../../../src/engine/context.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join('\n') + '\n';

/** An npm workspace monorepo: three packages of different sizes, plus docs and tests that are no area. */
function monorepo(root: string): string {
  return writeTree(root, {
    'package.json': JSON.stringify({ name: 'shop', private: true, workspaces: ['packages/*'] }),
    'packages/api/package.json': JSON.stringify({
      name: '@shop/api',
      main: 'src/index.ts',
      dependencies: { '@shop/core': '*' },
    }),
    'packages/api/src/index.ts': lines(40),
    'packages/web/package.json': JSON.stringify({ name: '@shop/web', main: 'src/main.ts' }),
    'packages/web/src/main.ts': lines(30),
    'packages/core/package.json': JSON.stringify({ name: '@shop/core', main: 'index.ts' }),
    'packages/core/index.ts': lines(10),
    'docs/guide.md': '# Guide\n',
    'test/e2e.test.ts': lines(5),
  });
}

describe('fed plan (proposePlan / applyPlan)', () => {
  it('splits a monorepo by its packages, one team per package with a mission naming it', () => {
    const root = monorepo(tempDir());
    initFederation(root, {}, {});
    const plan = proposePlan(openFederation(root));
    expect(plan.basis).toBe('packages');
    expect(plan.teams.map((t) => [t.team, t.areas.map((a) => a.path), t.lines])).toEqual([
      ['api-docs', ['packages/api'], 41],
      ['core-docs', ['packages/core'], 11],
      ['web-docs', ['packages/web'], 31],
    ]);
    expect(plan.teams[0]!.mission.subject).toBe('Document packages/api/');
    expect(plan.teams[0]!.mission.body).toBe(
      'Write the deliverable about packages/api/ of shop: its architecture, layout, main modules and dependencies, entry points, and how it is built and tested.',
    );
  });

  it('with fewer teams than areas, shares the smaller areas out so every area is covered', () => {
    const root = monorepo(tempDir());
    initFederation(root, {}, {});
    const plan = proposePlan(openFederation(root), { teams: 2 });
    expect(plan.teams.map((t) => [t.team, t.areas.map((a) => a.path)])).toEqual([
      ['api-docs', ['packages/api']],
      ['web-docs', ['packages/web', 'packages/core']],
    ]);
    expect(plan.teams[1]!.mission.subject).toBe('Document packages/web/ and packages/core/');
  });

  it('splits a single-package codebase by its source folders, descending into a src/ that holds most of the code', () => {
    const root = typescriptProject(tempDir());
    initFederation(root, {}, {});
    const plan = proposePlan(openFederation(root), { teams: 3 });
    expect(plan.basis).toBe('folders');
    // test/ is not an area; dist/ and node_modules/ are not read at all.
    expect(plan.teams.flatMap((t) => t.areas.map((a) => a.path)).sort()).toEqual([
      'src/commands',
      'src/core',
      'src/util',
    ]);
    expect(plan.teams.map((t) => t.team).sort()).toEqual(['commands-docs', 'core-docs', 'util-docs']);
  });

  it('refuses a codebase without source folders, saying what to do instead', () => {
    const root = writeTree(tempDir(), { 'main.py': 'print(1)\n' });
    initFederation(root, {}, {});
    expect(() => proposePlan(openFederation(root))).toThrow(/no source folders.*fed team onboard/);
    expect(() => proposePlan(openFederation(root), { teams: 0 })).toThrow(/--teams: expected a whole number/);
  });

  it('--apply onboards the teams and sends their missions once: applying again changes nothing', async () => {
    const root = monorepo(tempDir());
    initFederation(root, {}, {});
    const plan = proposePlan(openFederation(root));
    expect(await applyPlan(openFederation(root), plan)).toEqual(
      plan.teams.map((t) => ({ team: t.team, onboarded: true, missionSent: true })),
    );
    const again = await applyPlan(openFederation(root), proposePlan(openFederation(root)));
    expect(again).toEqual(plan.teams.map((t) => ({ team: t.team, onboarded: false, missionSent: false })));
    expect(
      readRegistry(root)
        .teams.map((t) => t.domainId)
        .sort(),
    ).toEqual(['api-docs', 'core-docs', 'web-docs']);
    const directives = (await listSignals(openFederation(root), { team: 'api-docs' })).signals.map(
      (s) => `${s.message.from} ${s.message.type}: ${s.message.subject}`,
    );
    expect(directives).toEqual(['meta directive: Document packages/api/']);
    expect((await viewLifecycle(openFederation(root), getTeam(readRegistry(root), 'api-docs'))).pending).toHaveLength(
      1,
    );
  });
});
