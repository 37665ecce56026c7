/**
 * What a top-level folder usually holds, from its name — a newcomer's first map of a repository. A guess
 * by convention: the survey reports it as such (confidence `medium`).
 */
const ROLES: Record<string, string> = {
  src: 'source code',
  lib: 'library code',
  app: 'application code',
  apps: 'applications (workspace packages)',
  packages: 'workspace packages',
  pkg: 'Go packages',
  internal: 'internal packages',
  cmd: 'commands (entry points)',
  bin: 'executables',
  cli: 'command-line interface',
  server: 'server code',
  client: 'client code',
  api: 'API code',
  web: 'web front end',
  frontend: 'front end',
  backend: 'back end',
  services: 'services',
  components: 'UI components',
  test: 'tests',
  tests: 'tests',
  __tests__: 'tests',
  spec: 'tests',
  e2e: 'end-to-end tests',
  benchmarks: 'benchmarks',
  bench: 'benchmarks',
  docs: 'documentation',
  doc: 'documentation',
  examples: 'examples',
  example: 'examples',
  samples: 'examples',
  scripts: 'scripts and tooling',
  tools: 'scripts and tooling',
  hack: 'scripts and tooling',
  config: 'configuration',
  configs: 'configuration',
  '.github': 'GitHub workflows and settings',
  deploy: 'deployment',
  infra: 'infrastructure',
  migrations: 'database migrations',
  assets: 'static assets',
  public: 'static assets',
  static: 'static assets',
  vendor: 'vendored third-party code',
  third_party: 'vendored third-party code',
  dist: 'build output',
  build: 'build output',
  out: 'build output',
  fixtures: 'test fixtures',
  diagrams: 'diagrams',
  machines: 'state machines',
  schemas: 'schemas',
  types: 'type declarations',
  skills: 'agent skills',
};

export function folderRole(name: string): string | null {
  return ROLES[name] ?? null;
}

/** Folders whose code shows, documents or checks the product rather than being it. */
const NOT_PRODUCT = new Set([
  'examples',
  'example',
  'samples',
  'sample',
  'docs',
  'doc',
  'fixtures',
  'fixture',
  '__fixtures__',
  'testdata',
  'test',
  'tests',
  '__tests__',
  'spec',
  'specs',
  'e2e',
  'benchmarks',
  'bench',
]);

/** A path inside examples, docs, tests, fixtures or benchmarks: never the codebase's entry point or one of its packages. */
export function outsideProduct(path: string): boolean {
  return path
    .split('/')
    .slice(0, -1)
    .some((segment) => NOT_PRODUCT.has(segment));
}
