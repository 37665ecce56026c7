import { describe, expect, it } from 'vitest';
import { surveyCodebase } from 'fed/testing';
import { writeTree } from '../../helpers/fixture-repo.js';
import { tempDir } from '../../helpers/temp-dir.js';

const json = (value: unknown) => JSON.stringify(value, null, 2);
const packageRows = (root: string) => {
  const s = surveyCodebase(root);
  // How each edge is declared, kind by kind, is package-graph.test.ts's concern.
  const edges = s.packages.edges.map(({ from, to, dev }) => ({ from, to, dev }));
  return { survey: s, packages: s.packages.list.map((p) => [p.name, p.path, p.entryPoints]), edges };
};

/** Three TypeScript packages (cli → core → utils, a dev-only link to testkit), an example app and docs beside them. */
const npmPackages = (extra: Record<string, string>) => ({
  'packages/core/package.json': json({
    name: '@acme/core',
    main: 'dist/index.js',
    dependencies: { '@acme/utils': 'workspace:*', zod: '^4' },
    devDependencies: { '@acme/testkit': 'workspace:*' },
  }),
  'packages/core/src/index.ts': "import { slug } from '@acme/utils';\nexport const core = (s: string) => slug(s);\n",
  'packages/utils/package.json': json({ name: '@acme/utils', main: 'dist/index.js' }),
  'packages/utils/src/index.ts': 'export const slug = (s: string) => s.toLowerCase();\n',
  'packages/testkit/package.json': json({ name: '@acme/testkit', main: 'src/index.ts' }),
  'packages/testkit/src/index.ts': 'export const fake = 1;\n',
  'apps/cli/package.json': json({
    name: '@acme/cli',
    bin: { acme: 'dist/main.js' },
    dependencies: { '@acme/core': '*' },
  }),
  'apps/cli/src/main.ts': "import { core } from '@acme/core';\nconsole.log(core(process.argv[2] ?? ''));\n",
  'examples/demo-app/package.json': json({ name: 'demo-app', main: 'index.js', dependencies: { '@acme/cli': '*' } }),
  'examples/demo-app/index.js': "require('@acme/cli');\n",
  'docs/index.js': '// the docs site\n',
  ...extra,
});

const EXPECTED_NPM = {
  packages: [
    ['@acme/cli', 'apps/cli', ['apps/cli/src/main.ts']],
    ['@acme/core', 'packages/core', ['packages/core/src/index.ts']],
    ['@acme/testkit', 'packages/testkit', ['packages/testkit/src/index.ts']],
    ['@acme/utils', 'packages/utils', ['packages/utils/src/index.ts']],
  ],
  edges: [
    { from: '@acme/cli', to: '@acme/core', dev: false },
    { from: '@acme/core', to: '@acme/testkit', dev: true },
    { from: '@acme/core', to: '@acme/utils', dev: false },
  ],
};

describe('monorepos: the packages, their entry points and the graph between them', () => {
  it('npm workspaces (array form): examples and docs are neither packages nor entry points', () => {
    const root = writeTree(
      tempDir(),
      npmPackages({ 'package.json': json({ name: 'acme', private: true, workspaces: ['packages/*', 'apps/*'] }) }),
    );
    const { survey, packages, edges } = packageRows(root);
    expect({ packages, edges }).toEqual(EXPECTED_NPM);
    expect(survey.packages.declaredBy).toEqual(['package.json']);
    expect(survey.entryPoints.map((e) => e.path)).toEqual([
      'apps/cli/src/main.ts',
      'packages/core/src/index.ts',
      'packages/testkit/src/index.ts',
      'packages/utils/src/index.ts',
    ]);
    // Imports of the repository's own packages are links between its files, not external packages.
    expect(survey.graph.links).toEqual(
      expect.arrayContaining([
        { from: 'apps/cli/src/main.ts', to: 'packages/core/src/index.ts' },
        { from: 'packages/core/src/index.ts', to: 'packages/utils/src/index.ts' },
      ]),
    );
    expect(survey.graph.external).toEqual([]);
  });

  it('yarn workspaces (object form) and pnpm-workspace.yaml', () => {
    const yarn = writeTree(
      tempDir(),
      npmPackages({
        'package.json': json({ name: 'acme', private: true, workspaces: { packages: ['packages/*', 'apps/*'] } }),
      }),
    );
    expect(packageRows(yarn)).toMatchObject(EXPECTED_NPM);
    const pnpm = writeTree(
      tempDir(),
      npmPackages({
        'package.json': json({ name: 'acme', private: true }),
        'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n  - apps/*\n",
      }),
    );
    const { survey, ...rows } = packageRows(pnpm);
    expect(rows).toEqual(EXPECTED_NPM);
    expect(survey.packages.declaredBy).toEqual(['pnpm-workspace.yaml']);
  });

  it('a Cargo workspace: members, [[bin]] and src/main.rs entry points, path dependencies between crates', () => {
    const root = writeTree(tempDir(), {
      'Cargo.toml': '[workspace]\nmembers = ["crates/*"]\nexclude = ["crates/scratch"]\n',
      'crates/engine/Cargo.toml': '[package]\nname = "engine"\n\n[dependencies]\nserde = "1"\n',
      'crates/engine/src/lib.rs': 'pub fn run() {}\n',
      'crates/tool/Cargo.toml':
        '[package]\nname = "tool"\n\n[[bin]]\nname = "tool-admin"\npath = "src/admin.rs"\n\n[dependencies]\nengine = { path = "../engine" }\n',
      'crates/tool/src/main.rs': 'fn main() { engine::run(); }\n',
      'crates/tool/src/admin.rs': 'fn main() {}\n',
      'crates/scratch/Cargo.toml': '[package]\nname = "scratch"\n',
      'examples/hello/main.rs': 'fn main() {}\n',
    });
    const { survey, packages, edges } = packageRows(root);
    expect(packages).toEqual([
      ['engine', 'crates/engine', ['crates/engine/src/lib.rs']],
      ['tool', 'crates/tool', ['crates/tool/src/admin.rs', 'crates/tool/src/main.rs']],
    ]);
    expect(edges).toEqual([{ from: 'tool', to: 'engine', dev: false }]);
    expect(survey.entryPoints.map((e) => e.path)).not.toContain('examples/hello/main.rs');
  });

  it('multi-module Go: each go.mod is a package, `package main` files are entry points, imports across modules resolve', () => {
    const root = writeTree(tempDir(), {
      'go.work': 'go 1.22\n\nuse (\n\t./api\n\t./cmd/server\n)\n',
      'api/go.mod': 'module example.com/acme/api\n\ngo 1.22\n',
      'api/handlers/users.go': 'package handlers\n\nfunc Users() string { return "users" }\n',
      'cmd/server/go.mod':
        'module example.com/acme/server\n\ngo 1.22\n\nrequire (\n\texample.com/acme/api v0.0.0\n\tgithub.com/go-chi/chi/v5 v5.0.0\n)\n',
      'cmd/server/main.go':
        'package main\n\nimport (\n\t"fmt"\n\t"example.com/acme/api/handlers"\n\t"github.com/go-chi/chi/v5/middleware"\n)\n\nfunc main() {\n\tfmt.Println(handlers.Users())\n}\n',
      'examples/client/main.go': 'package main\n\nfunc main() {}\n',
      'api/handlers/users_test.go': 'package handlers\n',
    });
    const { survey, packages, edges } = packageRows(root);
    expect(packages).toEqual([
      ['example.com/acme/api', 'api', []],
      ['example.com/acme/server', 'cmd/server', ['cmd/server/main.go']],
    ]);
    expect(edges).toEqual([{ from: 'example.com/acme/server', to: 'example.com/acme/api', dev: false }]);
    expect(survey.entryPoints).toEqual([
      { path: 'cmd/server/main.go', reason: 'Go `package main` with `func main()`', confidence: 'high' },
    ]);
    expect(survey.graph.links).toEqual([{ from: 'cmd/server/main.go', to: 'api/handlers/users.go' }]);
    expect(survey.graph.external).toEqual([{ name: 'github.com/go-chi/chi/v5', files: 1 }]);
  });

  it('several Python projects: console scripts and __main__ as entry points, dependencies by normalised name, package imports', () => {
    const root = writeTree(tempDir(), {
      'libs/shared/pyproject.toml': '[project]\nname = "acme_shared"\ndependencies = ["requests>=2"]\n',
      'libs/shared/src/acme_shared/__init__.py': 'from .text import clean\n',
      'libs/shared/src/acme_shared/text.py': 'import re\n\n\ndef clean(s):\n    return re.sub(r"\\s+", " ", s)\n',
      'services/api/pyproject.toml':
        '[project]\nname = "acme-api"\ndependencies = ["Acme.Shared", "fastapi"]\n\n[project.optional-dependencies]\ndev = ["pytest"]\n\n[project.scripts]\nacme-api = "acme_api.app:main"\n',
      'services/api/acme_api/__init__.py': '',
      'services/api/acme_api/__main__.py': 'from acme_api.app import main\n\nmain()\n',
      'services/api/acme_api/app.py':
        'import fastapi\nfrom acme_shared import (\n    clean,\n)\n\n\ndef main():\n    print(clean(" hi "))\n',
      'services/api/tests/test_app.py': 'from acme_api.app import main\n',
    });
    const { survey, packages, edges } = packageRows(root);
    expect(packages).toEqual([
      ['acme_shared', 'libs/shared', []],
      ['acme-api', 'services/api', ['services/api/acme_api/app.py', 'services/api/acme_api/__main__.py']],
    ]);
    expect(edges).toEqual([{ from: 'acme-api', to: 'acme_shared', dev: false }]);
    expect(survey.packages.declaredBy).toEqual(['several pyproject.toml files']);
    expect(survey.graph.links).toEqual(
      expect.arrayContaining([
        { from: 'libs/shared/src/acme_shared/__init__.py', to: 'libs/shared/src/acme_shared/text.py' },
        { from: 'services/api/acme_api/__main__.py', to: 'services/api/acme_api/app.py' },
        { from: 'services/api/acme_api/app.py', to: 'libs/shared/src/acme_shared/__init__.py' },
      ]),
    );
    expect(survey.graph.external).toEqual([{ name: 'fastapi', files: 1 }]);
  });

  it('a Cargo workspace root that is a crate itself is one of the packages', () => {
    const root = writeTree(tempDir(), {
      'Cargo.toml':
        '[package]\nname = "app"\n\n[workspace]\nmembers = ["lib"]\n\n[dependencies]\nlib = { path = "lib" }\n',
      'src/main.rs': 'fn main() {}\n',
      'lib/Cargo.toml': '[package]\nname = "lib"\n',
      'lib/src/lib.rs': '',
    });
    expect(packageRows(root)).toMatchObject({
      packages: [
        ['app', '.', ['src/main.rs']],
        ['lib', 'lib', ['lib/src/lib.rs']],
      ],
      edges: [{ from: 'app', to: 'lib', dev: false }],
    });
  });

  it('a single package is not a monorepo', () => {
    const root = writeTree(tempDir(), { 'package.json': json({ name: 'solo', main: 'index.js' }), 'index.js': '' });
    expect(surveyCodebase(root).packages).toEqual({ declaredBy: [], list: [], edges: [] });
  });
});
