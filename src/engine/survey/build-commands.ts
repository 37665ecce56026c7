import { basename, dirname, join } from 'node:path';
import { readFileBounded } from '../../infra/fs/read-file-bounded.js';
import type { FileRecord } from './inventory.js';
import type { Manifest } from './manifests.js';

/**
 * How to install, build, test and run the project, from what its files declare: npm scripts (run with
 * the package manager the lock file names), the Python packaging and test configuration (pyproject,
 * setup.cfg, setup.py, tox.ini, pytest.ini, conftest.py, requirements.txt), go.mod, Cargo.toml and the
 * root Makefile's targets. Each command says where it comes from, so a reader can check it. Nothing is
 * guessed from a language alone: a project that declares no way to build says so.
 */
export type CommandStep = 'install' | 'build' | 'test' | 'run' | 'check';

export interface ProjectCommand {
  step: CommandStep;
  command: string;
  /** Where it comes from: `package.json` script "build", `go.mod`, `Makefile` target "test"… */
  from: string;
}

export interface ProjectCommands {
  commands: ProjectCommand[];
  /** The root Makefile's targets, in file order (special and pattern targets left out). */
  makeTargets: string[];
}

const STEP_ORDER: CommandStep[] = ['install', 'build', 'test', 'run', 'check'];
const MAX_MAKE_TARGETS = 20;
const MAX_MAKEFILE_BYTES = 256 * 1024;

/** npm script names by the step they do. */
const NPM_SCRIPTS: [string, CommandStep][] = [
  ['build', 'build'],
  ['test', 'test'],
  ['start', 'run'],
  ['dev', 'run'],
  ['lint', 'check'],
  ['check', 'check'],
  ['typecheck', 'check'],
];

/** Conventional Makefile targets by the step they do. */
const MAKE_STEPS: Record<string, CommandStep> = {
  install: 'install',
  deps: 'install',
  setup: 'install',
  all: 'build',
  build: 'build',
  test: 'test',
  tests: 'test',
  check: 'check',
  lint: 'check',
  vet: 'check',
  run: 'run',
  serve: 'run',
  start: 'run',
};

/** `cd packages/api && ` when the manifest is not at the root. */
const inDir = (path: string) => (dirname(path) === '.' ? '' : `cd ${dirname(path)} && `);

/** A configuration file's text; '' when it is missing, unreadable or over `maxBytes` (then it declares nothing here). */
function readSmall(codebase: string, path: string, maxBytes = MAX_MAKEFILE_BYTES): string {
  try {
    const read = readFileBounded(join(codebase, path), { maxBytes });
    return read.ok ? read.bytes.toString('utf8') : '';
  } catch {
    return ''; // gone since the scan: there are just no commands to read from it
  }
}

function npmCommands(manifest: Manifest, packageManager: string | null): ProjectCommand[] {
  const pm = packageManager ?? 'npm';
  const cd = inDir(manifest.path);
  // A lock file means reproducible installs: `npm ci` installs exactly what it records.
  const install = pm === 'npm' ? (packageManager ? 'npm ci' : 'npm install') : `${pm} install`;
  const commands: ProjectCommand[] = [{ step: 'install', command: `${cd}${install}`, from: manifest.path }];
  for (const [script, step] of NPM_SCRIPTS) {
    if (!manifest.scripts[script]) continue;
    // `test` and `start` need no `run` (but `bun test` is bun's own test runner, not the script).
    const run = pm !== 'bun' && (script === 'test' || script === 'start') ? `${pm} ${script}` : `${pm} run ${script}`;
    commands.push({ step, command: `${cd}${run}`, from: `${manifest.path} script "${script}"` });
  }
  return commands;
}

function pythonCommands(codebase: string, manifest: Manifest | undefined, root: ReadonlySet<string>): ProjectCommand[] {
  const commands: ProjectCommand[] = [];
  const packaging = manifest?.path ?? ['setup.py', 'setup.cfg'].find((f) => root.has(f));
  if (packaging) commands.push({ step: 'install', command: `${inDir(packaging)}pip install -e .`, from: packaging });
  if (root.has('requirements.txt'))
    commands.push({ step: 'install', command: 'pip install -r requirements.txt', from: 'requirements.txt' });
  const cd = manifest ? inDir(manifest.path) : '';
  const pytestFrom =
    (manifest &&
      (manifest.tools.includes('pytest') ||
        [...manifest.dependencies, ...manifest.devDependencies].includes('pytest')) &&
      manifest.path) ||
    ['pytest.ini', 'conftest.py'].find((f) => root.has(f)) ||
    (root.has('setup.cfg') && /^\[tool:pytest\]/m.test(readSmall(codebase, 'setup.cfg')) && 'setup.cfg') ||
    (root.has('tox.ini') && /^\[pytest\]/m.test(readSmall(codebase, 'tox.ini')) && 'tox.ini');
  if (pytestFrom) commands.push({ step: 'test', command: `${cd}pytest`, from: pytestFrom });
  if (root.has('tox.ini')) commands.push({ step: 'test', command: 'tox', from: 'tox.ini' });
  for (const entry of manifest?.entryPoints ?? [])
    if (entry.name)
      commands.push({ step: 'run', command: `${entry.name} --help`, from: `${manifest!.path} ${entry.field}` });
  return commands;
}

function goCommands(manifest: Manifest, files: readonly FileRecord[]): ProjectCommand[] {
  const cd = inDir(manifest.path);
  const dir = dirname(manifest.path);
  const commands: ProjectCommand[] = [
    { step: 'build', command: `${cd}go build ./...`, from: manifest.path },
    { step: 'test', command: `${cd}go test ./...`, from: manifest.path },
  ];
  // Each `package main` folder is a program: `go run ./cmd/x`.
  const programs = new Set(
    files
      .filter((f) => f.runsAsProgram && f.language?.name === 'Go' && !f.test)
      .map((f) => dirname(f.path))
      .filter((d) => dir === '.' || d === dir || d.startsWith(`${dir}/`))
      .map((d) => (dir === '.' ? d : d.slice(dir.length + 1) || '.')),
  );
  for (const program of [...programs].sort().slice(0, 3))
    commands.push({
      step: 'run',
      command: `${cd}go run ${program === '.' ? '.' : `./${program}`}`,
      from: `package main in ${program}`,
    });
  return commands;
}

function cargoCommands(manifest: Manifest): ProjectCommand[] {
  const cd = inDir(manifest.path);
  return [
    { step: 'build', command: `${cd}cargo build`, from: manifest.path },
    { step: 'test', command: `${cd}cargo test`, from: manifest.path },
    ...(manifest.workspaces.length ? [] : [{ step: 'run' as const, command: `${cd}cargo run`, from: manifest.path }]),
  ];
}

/** A Makefile's targets: `name:` at the start of a line, not `.PHONY`, not a pattern or a variable (`x := 1`). */
export function makeTargets(text: string): string[] {
  const targets: string[] = [];
  for (const match of text.matchAll(/^([A-Za-z0-9][\w.-]*(?:[ \t]+[A-Za-z0-9][\w.-]*)*)[ \t]*:(?![:=])/gm))
    for (const name of match[1]!.split(/[ \t]+/)) if (!targets.includes(name)) targets.push(name);
  return targets.slice(0, MAX_MAKE_TARGETS);
}

export function projectCommands(
  codebase: string,
  files: readonly FileRecord[],
  manifests: readonly Manifest[],
  packageManager: string | null,
): ProjectCommands {
  const root = new Set(files.filter((f) => !f.path.includes('/')).map((f) => f.path));
  // The project's commands are its root manifests' when it has one: a sub-project's (`web/package.json`
  // beside a root `go.mod`) builds only that sub-project.
  const atRoot = manifests.filter((m) => dirname(m.path) === '.' && !m.problem);
  const own = atRoot.length ? atRoot : manifests;
  const first = (kind: Manifest['kind']) => own.find((m) => m.kind === kind && !m.problem);
  const commands: ProjectCommand[] = [];
  const npm = first('npm');
  if (npm) commands.push(...npmCommands(npm, packageManager));
  const python = first('python');
  if (python || ['setup.py', 'setup.cfg', 'tox.ini', 'pytest.ini', 'conftest.py'].some((f) => root.has(f)))
    commands.push(...pythonCommands(codebase, python, root));
  const go = first('go');
  if (go) commands.push(...goCommands(go, files));
  const cargo = first('cargo');
  if (cargo) commands.push(...cargoCommands(cargo));
  const makefile = ['GNUmakefile', 'Makefile', 'makefile'].find((f) => root.has(f));
  const targets = makefile ? makeTargets(readSmall(codebase, makefile)) : [];
  for (const target of targets) {
    const step = MAKE_STEPS[target];
    if (step) commands.push({ step, command: `make ${target}`, from: `${basename(makefile!)} target "${target}"` });
  }
  const order = (c: ProjectCommand) => STEP_ORDER.indexOf(c.step);
  // A stable sort: within a step, the manifests' order (npm, Python, Go, Cargo, then make).
  return { commands: commands.sort((a, b) => order(a) - order(b)), makeTargets: targets };
}

/**
 * The commands for `folder` of the codebase (a team's area), built by `home`, the folder of the nearest
 * manifest holding it: the project's commands as if `home` were the root, run from there (`cd
 * packages/api && npm test`), with `go build`, `go test` and `pytest` narrowed to `folder` when it lies
 * below `home` (`go test ./internal/orders/...`).
 */
export function folderCommands(
  codebase: string,
  files: readonly FileRecord[],
  manifests: readonly Manifest[],
  packageManager: string | null,
  home: string,
  folder: string,
): ProjectCommands {
  const relative = (path: string) => (home === '.' ? path : path.slice(home.length + 1));
  const inHome = (path: string) => home === '.' || path.startsWith(`${home}/`);
  const found = projectCommands(
    join(codebase, home),
    files.filter((f) => inHome(f.path)).map((f) => ({ ...f, path: relative(f.path) })),
    manifests.filter((m) => dirname(m.path) === home).map((m) => ({ ...m, path: relative(m.path) })),
    packageManager,
  );
  const scope = folder === home ? '.' : relative(folder);
  const narrowed = (command: string) =>
    scope === '.'
      ? command
      : command.replace(/^(go (?:build|test)) \.\/\.\.\.$/, `$1 ./${scope}/...`).replace(/^pytest$/, `pytest ${scope}`);
  const cd = home === '.' ? '' : `cd ${home} && `;
  return {
    ...found,
    commands: found.commands.map((c) => ({
      ...c,
      command: `${cd}${narrowed(c.command)}`,
      from: home === '.' ? c.from : `${home}/${c.from}`,
    })),
  };
}
