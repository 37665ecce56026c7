import { describe, expect, it } from 'vitest';
import { planMission } from '../../src/mission-plan.js';
import { surveyCodebase } from 'fed/survey';
import { writeAgentDocument } from '../helpers/agent-document.js';
import { writeTree } from '../../../../test/helpers/fixture-repo.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

/**
 * A dozen packages of one product with real cross-dependencies, written as each workspace tool lays them
 * out: `core` is what most depend on, `plugins` only as a peer, `testkit` only for development.
 */
const GRAPH: Record<string, { runtime?: string[]; peer?: string[]; dev?: string[] }> = {
  types: {},
  utils: { runtime: ['types'] },
  core: { runtime: ['types', 'utils'] },
  config: { runtime: ['types', 'utils'] },
  logger: { runtime: ['utils'] },
  db: { runtime: ['config', 'core', 'logger'] },
  auth: { runtime: ['core', 'db'] },
  api: { runtime: ['auth', 'core', 'db', 'logger'], dev: ['testkit'] },
  web: { runtime: ['core', 'types'] },
  cli: { runtime: ['api', 'config', 'logger'] },
  testkit: { runtime: ['core', 'utils'] },
  plugins: { peer: ['core'], dev: ['testkit'] },
};
const APPS = new Set(['api', 'web', 'cli']);
const json = (value: unknown) => JSON.stringify(value, null, 2);
const source = (name: string, deps: string[], importOf: (dep: string) => string) =>
  `${deps.map((d) => importOf(d)).join('\n')}\nexport const ${name} = ${deps.length};\n`;
const record = (deps: string[] = [], version: string) => Object.fromEntries(deps.map((d) => [`@acme/${d}`, version]));

type Tool = 'npm' | 'pnpm' | 'yarn' | 'lerna' | 'nx' | 'turbo';

/** A TypeScript monorepo laid out for `tool`; nx puts the applications under apps/ and the rest under libs/. */
function typescriptMonorepo(tool: Tool): string {
  const folder = (name: string) =>
    tool === 'nx' || tool === 'turbo' ? (APPS.has(name) ? 'apps' : 'libs') : 'packages';
  const files: Record<string, string> = {
    'README.md': '# Acme\n\nThe Acme platform.\n',
    'tsconfig.json': '{}\n',
  };
  const version = tool === 'pnpm' ? 'workspace:*' : '^1.2.0';
  for (const [name, deps] of Object.entries(GRAPH)) {
    const dir = `${folder(name)}/${name}`;
    files[`${dir}/package.json`] = json({
      name: `@acme/${name}`,
      version: '1.2.0',
      main: 'src/index.ts',
      dependencies: { ...record(deps.runtime, version), ...(name === 'web' ? { react: '^19' } : {}) },
      peerDependencies: record(deps.peer, '^1.2.0'),
      devDependencies: { ...record(deps.dev, version), typescript: '^5' },
    });
    files[`${dir}/src/index.ts`] = source(
      name,
      [...(deps.runtime ?? []), ...(deps.peer ?? [])],
      (d) => `import { ${d} } from '@acme/${d}';`,
    );
  }
  const root = { name: 'acme', private: true };
  if (tool === 'npm') files['package.json'] = json({ ...root, workspaces: ['packages/*'] });
  if (tool === 'yarn') files['package.json'] = json({ ...root, workspaces: { packages: ['packages/*'] } });
  if (tool === 'pnpm') {
    files['package.json'] = json(root);
    files['pnpm-workspace.yaml'] = "packages:\n  - 'packages/*'\n";
  }
  if (tool === 'lerna') {
    files['package.json'] = json(root);
    files['lerna.json'] = json({ version: '1.2.0', packages: ['packages/*'] });
  }
  if (tool === 'nx') {
    files['package.json'] = json(root);
    files['nx.json'] = json({ workspaceLayout: { appsDir: 'apps', libsDir: 'libs' }, targetDefaults: {} });
  }
  if (tool === 'turbo') {
    files['package.json'] = json({ ...root, workspaces: ['apps/*', 'libs/*'] });
    files['turbo.json'] = json({ tasks: { build: { dependsOn: ['^build'] } } });
  }
  return writeTree(tempDir(), files);
}

/** The same product as a Cargo workspace: crates inherit the workspace version; `db` renames its `core` dependency. */
function cargoWorkspace(): string {
  const files: Record<string, string> = {
    'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n\n[workspace.package]\nversion = "0.4.0"\n',
  };
  const table = (deps: string[] = [], self: string) =>
    deps
      .map((d) =>
        self === 'db' && d === 'core'
          ? `kernel = { package = "acme-core", path = "../core" }`
          : `acme-${d} = { path = "../${d}" }`,
      )
      .join('\n');
  for (const [name, deps] of Object.entries(GRAPH)) {
    files[`crates/${name}/Cargo.toml`] =
      `[package]\nname = "acme-${name}"\nversion.workspace = true\nedition = "2021"\n\n[dependencies]\n${table([...(deps.runtime ?? []), ...(deps.peer ?? [])], name)}\nserde = "1"\n\n[dev-dependencies]\n${table(deps.dev, name)}\n`;
    files[`crates/${name}/src/lib.rs`] = `pub fn ${name}() -> usize { ${(deps.runtime ?? []).length} }\n`;
  }
  return writeTree(tempDir(), files);
}

/** The same product as a Go multi-module repository tied together by go.work. */
function goWorkspace(): string {
  const files: Record<string, string> = {
    'go.work': `go 1.22\n\nuse (\n${Object.keys(GRAPH)
      .map((n) => `\t./${n}`)
      .join('\n')}\n)\n`,
  };
  for (const [name, deps] of Object.entries(GRAPH)) {
    const all = [...(deps.runtime ?? []), ...(deps.peer ?? []), ...(deps.dev ?? [])];
    files[`${name}/go.mod`] =
      `module example.com/acme/${name}\n\ngo 1.22\n\nrequire (\n${all.map((d) => `\texample.com/acme/${d} v0.0.0`).join('\n')}\n\tgithub.com/google/uuid v1.6.0 // indirect\n)\n`;
    files[`${name}/${name}.go`] =
      `package ${name}\n\nimport (\n${all.map((d) => `\t"example.com/acme/${d}"`).join('\n')}\n)\n\nfunc Name() string { return "${name}" }\n`;
  }
  return writeTree(tempDir(), files);
}

const MISSION = {
  subject: 'Packages of this monorepo and how they depend on each other',
  body: 'List every package under packages/ with its npm name, and draw how they depend on each other.',
};

/** The document's section with this title, up to the next one. */
function sectionOf(markdown: string, title: string): string {
  const start = markdown.indexOf(`## ${title}\n`);
  expect(start, `no section "${title}" in:\n${markdown}`).not.toBe(-1);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

const TITLE = 'Packages and how they depend on each other';
const dependencyCount = Object.values(GRAPH).reduce(
  (n, d) => n + new Set([...(d.runtime ?? []), ...(d.peer ?? []), ...(d.dev ?? [])]).size,
  0,
);

describe('a mission asking for the packages and how they depend on each other', () => {
  it('is one question, whatever a package is called, and none of its words is a subject', () => {
    for (const unit of ['packages', 'modules', 'crates', 'workspace members']) {
      const plan = planMission(
        { subject: `The ${unit} of this repository and how they depend on each other`, body: MISSION.body },
        'acme',
      );
      expect(plan.packageGraph, unit).toBe(true);
      expect(plan.topics, unit).toEqual([]);
    }
    expect(planMission({ subject: 'Which crates does this workspace have?', body: '' }, 'x').packageGraph).toBe(true);
    // The words `fed plan` writes into every team's mission are the overview, not this question.
    const planned = planMission(
      {
        subject: 'Document packages/api/',
        body: 'Write about its architecture, layout, main modules and dependencies.',
      },
      'acme',
    );
    expect(planned.packageGraph).toBe(false);
  });

  it.each<Tool>(['npm', 'pnpm', 'yarn', 'lerna', 'nx', 'turbo'])(
    '%s workspaces: every package with its name and version, its dependencies by kind, the graph and the core',
    async (tool) => {
      const root = typescriptMonorepo(tool);
      const markdown = await writeAgentDocument(root, `graph-${tool}`, MISSION);
      const graph = sectionOf(markdown, TITLE);
      for (const name of Object.keys(GRAPH))
        expect(graph).toMatch(new RegExp(`\\| \`@acme/${name}\` \\| \`1\\.2\\.0\` \\|`));
      expect(graph).toContain('| `@acme/api` | `1.2.0` | ');
      expect(graph).toMatch(
        /\| `@acme\/plugins` \| `1\.2\.0` \| `[\w/]+\/plugins\/` \| — \| `@acme\/core` \| `@acme\/testkit` \| — \|/,
      );
      expect(graph).toMatch(
        /\| `@acme\/api` \| [^\n]*\| `@acme\/auth`, `@acme\/core`, `@acme\/db`, `@acme\/logger` \| — \| `@acme\/testkit` \| `@acme\/cli` \|/,
      );
      const arrows = graph.match(/^ {2}p\d+ (?:-->|-->\|peer\||-\.->) p\d+$/gm) ?? [];
      expect(arrows).toHaveLength(dependencyCount);
      expect(graph).toMatch(/The core is `@acme\/core` \([^)]*\): 6 of the 11 other packages depend on it/);
      // Not a document about the folder, nor files ranked for "name" and "draw".
      expect(markdown).not.toMatch(/## (?:packages|List every package)/);
      expect(markdown).not.toContain('`draw`');
      expect(markdown).not.toContain('## Packages\n');
    },
    30_000,
  );

  it('a Cargo workspace: crates with the workspace version, a renamed dependency, development ones apart', async () => {
    const root = cargoWorkspace();
    const { packages } = surveyCodebase(root);
    expect(packages.list.map((p) => [p.name, p.version])).toContainEqual(['acme-core', '0.4.0']);
    expect(packages.edges).toContainEqual({ from: 'acme-db', to: 'acme-core', dev: false, kinds: ['runtime'] });
    expect(packages.edges).toContainEqual({ from: 'acme-plugins', to: 'acme-testkit', dev: true, kinds: ['dev'] });
    const graph = sectionOf(await writeAgentDocument(root, 'graph-cargo', MISSION), TITLE);
    expect(graph).toContain('12 packages, as `Cargo.toml` declares.');
    expect(graph.match(/^ {2}p\d+ (?:-->|-\.->) p\d+$/gm)).toHaveLength(dependencyCount);
    expect(graph).toMatch(/The core is `acme-core` \(`crates\/core\/`\): 6 of the 11 other packages depend on it/);
  }, 30_000);

  it('a Go workspace (go.work): every module, no version, the same graph', async () => {
    const root = goWorkspace();
    const graph = sectionOf(await writeAgentDocument(root, 'graph-go', MISSION), TITLE);
    expect(graph).toContain('12 packages, as `go.work` declares.');
    expect(graph).toContain('| `example.com/acme/core` | none declared | `core/` |');
    expect(graph.match(/^ {2}p\d+ --> p\d+$/gm)).toHaveLength(dependencyCount);
    expect(graph).toMatch(
      /The core is `example.com\/acme\/core` \(`core\/`\): 6 of the 11 other packages depend on it/,
    );
  }, 30_000);

  it('the section is the same whether the mission says packages, modules, crates or workspace', async () => {
    const root = typescriptMonorepo('npm');
    const sections = await Promise.all(
      [
        'The packages of this monorepo and how they depend on each other',
        'The modules of this repository and how they depend on each other',
        'List the crates and the dependency graph between them',
        'Every workspace member and how they depend on one another',
      ].map(async (subject, i) => sectionOf(await writeAgentDocument(root, `unit-${i}`, { subject, body: '' }), TITLE)),
    );
    expect(new Set(sections).size).toBe(1);
  }, 30_000);

  it('a single package says so, rather than drawing a graph of one', async () => {
    const root = writeTree(tempDir(), {
      'package.json': json({ name: 'solo', version: '0.1.0', main: 'index.js' }),
      'index.js': 'module.exports = 1;\n',
    });
    const graph = sectionOf(await writeAgentDocument(root, 'solo', MISSION), TITLE);
    expect(graph).toContain('This repository is one package, `solo` (`package.json`), not a workspace of several');
  });
});
