import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import {
  buildProgram,
  COMMAND_NAMES,
  OWN_BUNDLE_COMMANDS,
  packageRoot,
  packageVersion,
  readJournalTail,
  readRegistry,
  reportSignalId,
} from 'fed/testing';
import { listSignals, openFederation } from 'fed';
import { builtBin, runFed } from '../helpers/fed-cli.js';
import { manyTeamsFederation } from '../helpers/big-federations.js';
import { fedLoadedModules, loadsCrypto } from '../helpers/loaded-modules.js';
import { isUuidV4 } from '../helpers/uuid-v4.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Start-up (issue 18): what each command initialises as it starts, and the V8 code cache the `fed` bin
 * keeps (src/cli/bin.ts). `npm run bench` (startup) measures the time itself.
 */

/** The module graph of the CLI as esbuild bundles it (scripts/bundle.mjs), without writing anything. */
async function cliModuleGraph(): Promise<Metafile> {
  const result = await build({
    entryPoints: [join(packageRoot(), 'src/cli/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    metafile: true,
    external: ['tsx', '@statelyai/inspect'],
    logLevel: 'silent',
  });
  return result.metafile;
}

/**
 * The modules that initialise when `from` does: its static imports, transitively. A module reached only
 * through `import()` stays behind a lazy initialiser in the bundle and runs only when that import() does.
 */
function initialisedWith(graph: Metafile, from: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const edge of graph.inputs[file]?.imports ?? [])
      if (edge.kind !== 'dynamic-import' && !edge.external) visit(edge.path);
  };
  visit(from);
  return seen;
}

const initialises = (modules: Set<string>, packagePath: string) =>
  [...modules].some((file) => file.includes(packagePath));

describe('fast start: what a command initialises', () => {
  it('`fed --version` initialises the program and no command: no zod, no xstate', async () => {
    const modules = initialisedWith(await cliModuleGraph(), 'src/cli/main.ts');
    expect(initialises(modules, 'node_modules/zod/')).toBe(false);
    expect(initialises(modules, 'node_modules/xstate/')).toBe(false);
    expect(initialises(modules, 'src/cli/commands/')).toBe(false);
    expect(await runFed(['--version'])).toMatchObject({ code: 0, stdout: `${packageVersion()}\n` });
  });

  it('commands initialise only what they use: the OpenTelemetry SDK and the Markdown parser on demand', async () => {
    const graph = await cliModuleGraph();
    for (const command of [
      'event',
      'signal',
      'team',
      'actors',
      'launch',
      'monitor',
      'init',
      'doctor',
      'config',
      'migrate',
      'mcp',
      'ui',
    ]) {
      const modules = initialisedWith(graph, `src/cli/commands/${command}.ts`);
      for (const sdk of ['sdk-metrics', 'sdk-trace', 'exporter-trace-otlp-http'])
        expect(
          initialises(modules, `node_modules/@opentelemetry/${sdk}/`),
          `${command} initialises the OTel SDK (${sdk}) up front`,
        ).toBe(false);
      expect(
        initialises(modules, 'node_modules/micromark'),
        `${command} initialises the Markdown parser up front`,
      ).toBe(false);
      // The MCP SDK (and what it brings: express, hono, ajv) is for `fed mcp` alone.
      if (command !== 'mcp')
        expect(initialises(modules, 'node_modules/@modelcontextprotocol/'), `${command} initialises the MCP SDK`).toBe(
          false,
        );
      // The dashboard's server (node:http, its views and actions) loads when `fed ui` starts serving.
      expect(
        initialises(modules, 'src/apps/ui/server/ui-server.ts'),
        `${command} initialises the dashboard's server up front`,
      ).toBe(false);
      // The JetStream adapter is in the registry every command reads; its NATS client loads on first use.
      expect(initialises(modules, 'node_modules/@nats-io/'), `${command} initialises the NATS client up front`).toBe(
        false,
      );
    }
  });

  it('`fed team show` initialises what only other team subcommands use: none of it', async () => {
    const modules = initialisedWith(await cliModuleGraph(), 'src/cli/commands/team.ts');
    for (const module of [
      'src/engine/registry/onboard.ts',
      'src/engine/registry/remove-team.ts',
      'src/apps/run/team-retry.ts',
      'src/engine/actors/team-status-command.ts',
      'src/engine/delivery/alert-stuck-signals.ts',
    ])
      expect(initialises(modules, module), `fed team initialises ${module} up front`).toBe(false);
  });

  it('`fed` sets zod to jitless as it loads a command, not for `--version` (packages/fed-agent/test/e2e/fed-agent.test.ts: no parser is generated)', async () => {
    const io = { stdout: () => {}, stderr: () => {}, terminal: () => {}, env: {}, cwd: process.cwd(), isTTY: false };
    expect(z.config().jitless).toBeUndefined();
    await buildProgram(io, ['--version']);
    expect(z.config().jitless).toBeUndefined();
    await buildProgram(io, ['event']);
    expect(z.config().jitless).toBe(true);
  });

  it('help still lists every command, each loaded only for it', async () => {
    const help = await runFed(['--help']);
    expect(help.code).toBe(0);
    for (const command of [
      'init',
      'team',
      'signal',
      'event',
      'actors',
      'launch',
      'monitor',
      'chat',
      'deliverable',
      'demo',
    ])
      expect(help.stdout).toContain(`  ${command}`);
    expect(await runFed(['tema', 'list'])).toMatchObject({ code: 2, stderr: expect.stringContaining('team') });
  });
});

describe('fast start: the code cache', () => {
  const cacheFiles = (dir: string) =>
    existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.v8cache')) : [];

  it("a command's first run leaves its compiled code; the next run uses it as it is", async () => {
    const cache = join(tempDir(), 'cache');
    const env = { FED_CODE_CACHE: cache };
    expect(await runFed(['--version'], { env })).toMatchObject({
      code: 0,
      stdout: `${packageVersion()}\n`,
      stderr: '',
    });
    const [file] = cacheFiles(cache);
    expect(file).toMatch(new RegExp(`^[0-9a-f]{16}-${process.version}-${process.arch}-version\\.v8cache$`));
    expect(statSync(cache).mode & 0o777).toBe(0o700);
    const made = statSync(join(cache, file!));
    expect(made.size).toBeGreaterThan(0);

    expect(await runFed(['--version'], { env })).toMatchObject({
      code: 0,
      stdout: `${packageVersion()}\n`,
      stderr: '',
    });
    // Accepted by V8: the file was not replaced (a rejected cache is written again, as a new file).
    expect(statSync(join(cache, file!)).ino).toBe(made.ino);

    // Each command has its own, made by its own first run (help loads every command, and the chunks they
    // load as they initialise, each with a cache of its own).
    expect((await runFed(['--help'], { env })).code).toBe(0);
    expect(
      cacheFiles(cache)
        .map((name) => name.replace(/^.*-/, ''))
        .filter((name) => !/^help\.\w+\.v8cache$/.test(name))
        .sort(),
    ).toEqual(['help.v8cache', 'version.v8cache']);
  });

  it('the first run of a build removes the caches older builds left a day ago; a run that found its cache leaves the folder alone', async () => {
    const cache = join(tempDir(), 'cache');
    const env = { FED_CODE_CACHE: cache };
    mkdirSync(cache, { mode: 0o700 });
    const older = (name: string, ageMs: number) => {
      writeFileSync(join(cache, name), 'compiled by an older fed');
      const at = (Date.now() - ageMs) / 1000;
      utimesSync(join(cache, name), at, at);
      return name;
    };
    const day = 24 * 60 * 60 * 1000;
    const stale = older(`0123456789abcdef-${process.version}-${process.arch}-event.v8cache`, 2 * day);
    const recent = older(`0123456789abcdef-${process.version}-${process.arch}-team.v8cache`, 60_000);
    expect((await runFed(['--version'], { env })).code).toBe(0);
    const [made] = cacheFiles(cache).filter((name) => name.endsWith('-version.v8cache') && !name.startsWith('0123'));
    expect(made).toBeDefined();
    expect(cacheFiles(cache).sort()).toEqual([made, recent].sort());
    expect(existsSync(join(cache, stale))).toBe(false);

    // Planted after: a run that writes nothing does not look.
    const later = older(`fedcba9876543210-${process.version}-${process.arch}-event.v8cache`, 2 * day);
    expect((await runFed(['--version'], { env })).code).toBe(0);
    expect(existsSync(join(cache, later))).toBe(true);
  });

  it('a run an error stopped leaves a provisional cache, which the next run to its end replaces', async () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    const env = { FED_CODE_CACHE: cache };
    const listed = (command: string) =>
      cacheFiles(cache)
        .map((name) => name.replace(/^.*-/, ''))
        .filter((name) => name.startsWith(`${command}.`));
    const file = (command: string, kind = '') =>
      join(
        cache,
        cacheFiles(cache).find((name) => name.endsWith(`-${command}${kind}.v8cache`))!,
      );
    // Outside any federation `fed team list` stops at once: its cache holds little of the command.
    const outside = join(dir, 'elsewhere');
    mkdirSync(outside);
    expect(await runFed(['team', 'list'], { env, cwd: outside })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no federation found'),
    });
    expect(listed('team')).toEqual(['team.provisional.v8cache']);
    const provisional = statSync(file('team', '.provisional'));
    // Used, and kept, by another run an error stops.
    expect((await runFed(['team', 'list'], { env, cwd: outside })).code).toBe(2);
    expect(statSync(file('team', '.provisional')).ino).toBe(provisional.ino);
    // A run that does the command's work leaves the complete cache in its place.
    const federation = join(dir, 'federation');
    mkdirSync(federation);
    expect((await runFed(['init'], { env, cwd: federation })).code).toBe(0);
    expect((await runFed(['team', 'list'], { env, cwd: federation })).code).toBe(0);
    expect(listed('team')).toEqual(['team.v8cache']);
    const complete = statSync(file('team'));
    expect(complete.size).toBeGreaterThan(provisional.size);
    // Which a later stopped run uses and leaves as it is.
    expect((await runFed(['team', 'list'], { env, cwd: outside })).code).toBe(2);
    expect(statSync(file('team')).ino).toBe(complete.ino);
    expect(listed('team')).toEqual(['team.v8cache']);

    // A complete cache V8 refuses goes with the provisional one a stopped run leaves (read first, it would
    // be refused again), and a run to its end makes a complete one again.
    writeFileSync(file('team'), 'not V8 code'.repeat(100));
    expect((await runFed(['team', 'list'], { env, cwd: outside })).code).toBe(2);
    expect(listed('team')).toEqual(['team.provisional.v8cache']);
    expect((await runFed(['team', 'list'], { env, cwd: federation })).code).toBe(0);
    expect(listed('team')).toEqual(['team.v8cache']);

    // A command that ends with a code of its own after its work (a config naming a missing file) ran to
    // its end: its cache is complete.
    rmSync(join(federation, '.fed', 'skills', 'domain-playbook.md'));
    expect(await runFed(['config', 'show'], { env, cwd: federation })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('playbookSkill'),
    });
    expect(listed('config')).toEqual(['config.v8cache']);
  });

  it('a chunk (the packages most commands never load) loads on first use, through a code cache of its own', async () => {
    const dir = tempDir();
    const cache = join(dir, 'cache');
    const env = { FED_CODE_CACHE: cache };
    expect((await runFed(['--version'], { env })).code).toBe(0);
    expect(cacheFiles(cache).map((name) => name.replace(/^.*-/, ''))).toEqual(['version.v8cache']);
    // Checking a deliverable parses its Markdown: the parser is a chunk.
    const deliverable = join(dir, 'report.md');
    writeFileSync(deliverable, '# Report\n');
    const check = async () => {
      const result = await runFed(['deliverable', 'check', deliverable], { env });
      expect(result).toMatchObject({ code: 2, stdout: expect.stringContaining('no "Next steps" section') });
    };
    await check();
    // The check refuses the document (exit 2): its caches are provisional, used until a check passes.
    const chunkCache = cacheFiles(cache).find((name) => name.endsWith('-deliverable.markdown.provisional.v8cache'));
    expect(chunkCache).toBeDefined();
    const made = statSync(join(cache, chunkCache!));
    expect(made.size).toBeGreaterThan(0);
    // Accepted by V8 on the next run: not written again.
    await check();
    expect(statSync(join(cache, chunkCache!)).ino).toBe(made.ino);
    // A damaged one is rejected quietly and replaced.
    writeFileSync(join(cache, chunkCache!), 'not V8 code'.repeat(100));
    await check();
    expect(readFileSync(join(cache, chunkCache!)).toString('latin1')).not.toContain('not V8 code');
  });

  it('a chunk missing or from another build is refused by name, as a file fed cannot use (exit 2)', () => {
    // A copy of the built CLI beside the package's manifest and dependencies, whose chunks can be damaged.
    const dir = tempDir();
    const cli = join(dir, 'dist', 'bin', 'cli');
    cpSync(join(packageRoot(), 'dist', 'bin', 'cli'), cli, { recursive: true });
    for (const name of ['package.json', 'node_modules']) symlinkSync(join(packageRoot(), name), join(dir, name));
    const deliverable = join(dir, 'report.md');
    writeFileSync(deliverable, '# Report\n');
    const check = () =>
      spawnSync(process.execPath, [join(cli, 'fed.cjs'), 'deliverable', 'check', deliverable], {
        env: { ...process.env, FED_CODE_CACHE: join(dir, 'cache') },
        encoding: 'utf8',
      });
    const chunk = join(cli, 'chunk-markdown.cjs');
    const text = readFileSync(chunk);
    rmSync(chunk);
    expect(check()).toMatchObject({
      status: 2,
      stderr: expect.stringContaining(`${chunk} cannot be used: a part of fed that cannot be opened`),
    });
    writeFileSync(chunk, Buffer.concat([text, Buffer.from('// another build\n')]));
    expect(check()).toMatchObject({
      status: 2,
      stderr: expect.stringContaining(`${chunk} cannot be used: a part of fed from another build`),
    });
    writeFileSync(chunk, text);
    expect(check()).toMatchObject({ status: 2, stdout: expect.stringContaining('no "Next steps" section') });
  });

  it('`fed event`, `fed signal`, `fed team` and `fed monitor` run from bundles of their own, each holding no other command', () => {
    expect(OWN_BUNDLE_COMMANDS).toEqual(['event', 'signal', 'team', 'monitor']);
    const built = join(packageRoot(), 'dist', 'bin', 'cli');
    const main = readFileSync(join(built, 'main.cjs'), 'latin1');
    const registers = (name: string) => `function register${name[0]!.toUpperCase()}${name.slice(1)}(`;
    for (const command of OWN_BUNDLE_COMMANDS) {
      const own = readFileSync(join(built, `${command}.cjs`), 'latin1');
      for (const other of COMMAND_NAMES)
        expect([main.includes(registers(other)), own.includes(registers(other))], `${command}.cjs: ${other}`).toEqual([
          true,
          other === command,
        ]);
      expect(own.length).toBeLessThan(main.length * 0.7);
    }

    // Which bundle runs: a copy of the CLI whose event bundle says so as it starts.
    const dir = tempDir();
    const cli = join(dir, 'dist', 'bin', 'cli');
    cpSync(built, cli, { recursive: true });
    for (const name of ['package.json', 'node_modules']) symlinkSync(join(packageRoot(), name), join(dir, name));
    const event = readFileSync(join(built, 'event.cjs'), 'latin1');
    writeFileSync(join(cli, 'event.cjs'), `process.stderr.write('event.cjs\\n');\n${event}`);
    const help = (command: string) =>
      spawnSync(process.execPath, [join(cli, 'fed.cjs'), command, '--help'], {
        env: { ...process.env, FED_CODE_CACHE: 'off' },
        encoding: 'utf8',
      });
    expect(help('event')).toMatchObject({
      status: 0,
      stdout: expect.stringContaining('fed event'),
      stderr: 'event.cjs\n',
    });
    expect(help('team')).toMatchObject({ status: 0, stdout: expect.stringContaining('fed team'), stderr: '' });
    expect(help('monitor')).toMatchObject({ status: 0, stdout: expect.stringContaining('fed monitor'), stderr: '' });
  });

  it('`fed event` and `fed signal send` load no node:crypto; their ids and digests are what node:crypto makes', async () => {
    const { root, ready } = await manyTeamsFederation(2, 1);
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const team = ready[0]!;
    const loadedCrypto = async (args: string[]) => {
      const { result, modules } = await fedLoadedModules(args, { FED_ROOT: root });
      expect(result.code, args.join(' ')).toBe(0);
      return loadsCrypto(modules);
    };
    expect(await loadedCrypto(['event', '--team', team, 'PLAN_READY', '--data', '{"sources":["src"]}'])).toBe(false);
    const send = 'signal send --to team-0001 --type directive --subject go --body now';
    expect(await loadedCrypto(send.split(' '))).toBe(false);

    // The report's id is the name-based UUID node:crypto's SHA-1 makes, its digest node:crypto's SHA-256.
    const fed = openFederation(root);
    const entry = readRegistry(root).teams.find((each) => each.domainId === team)!;
    const { seq } = readJournalTail(entry.location, 1)[0]!;
    const sent = (await listSignals(fed, { team: 'meta', type: 'report' })).signals.map((each) => each.message);
    expect(sent.map((message) => message.id)).toEqual([reportSignalId(entry, 'deliverable', seq)]);
    const directive = (await listSignals(fed, { team: 'team-0001' })).signals[0]!.message;
    expect(isUuidV4(directive.id), directive.id).toBe(true);
    for (const message of [...sent, directive]) {
      const fact = await fed.backend.delivery.get(message.id, 'sent');
      const content = JSON.stringify([message.from, message.to, message.type, message.subject, message.body]);
      expect(fact?.digest).toBe(createHash('sha256').update(content).digest('hex'));
    }
  });

  it("zod's code generator and JSON Schema importer are left out of every bundle; its JSON Schema writer stays", async () => {
    const cliBundles = ['main', ...OWN_BUNDLE_COMMANDS].map((name) => join(packageRoot(), `dist/bin/cli/${name}.cjs`));
    for (const bundle of [...cliBundles, join(dirname(builtBin('fed-agent')), 'agent.cjs')]) {
      const text = readFileSync(bundle, 'latin1');
      expect(text, bundle).not.toContain('z.compile does not support');
      expect(text, bundle).toContain("zod's fromJSONSchema is left out of fed's bundles");
    }
    const schema = await runFed(['schema', 'signal']);
    expect(schema.code).toBe(0);
    expect(JSON.parse(schema.stdout)).toMatchObject({ type: 'object', properties: { id: { format: 'uuid' } } });
  });

  it('a corrupt cache is rejected quietly and replaced; the command runs as without one', async () => {
    const cache = join(tempDir(), 'cache');
    const env = { FED_CODE_CACHE: cache };
    expect((await runFed(['--version'], { env })).code).toBe(0);
    const file = join(cache, cacheFiles(cache)[0]!);
    writeFileSync(file, 'not V8 code'.repeat(100));
    expect(await runFed(['--version'], { env })).toMatchObject({
      code: 0,
      stdout: `${packageVersion()}\n`,
      stderr: '',
    });
    expect(readFileSync(file).toString('latin1')).not.toContain('not V8 code');
  });

  it('defaults to $XDG_CACHE_HOME/fed; FED_CODE_CACHE=off keeps none', async () => {
    const xdg = tempDir();
    expect((await runFed(['--version'], { env: { XDG_CACHE_HOME: xdg } })).code).toBe(0);
    expect(cacheFiles(join(xdg, 'fed'))).toHaveLength(1);

    const off = tempDir();
    expect(await runFed(['--version'], { env: { XDG_CACHE_HOME: off, FED_CODE_CACHE: 'off' } })).toMatchObject({
      code: 0,
      stdout: `${packageVersion()}\n`,
      stderr: '',
    });
    expect(readdirSync(off)).toEqual([]);
  });

  it('an importHook module, ES module or TypeScript, loads in the bundled CLI, with and without a cache', async () => {
    const root = tempDir();
    const env = { FED_CODE_CACHE: join(root, 'cache') };
    expect((await runFed(['init', '--root', root], { env })).code).toBe(0);
    const hooks = {
      'hooks.mjs':
        "import { appendFileSync } from 'node:fs';\nexport async function onInit(context) { appendFileSync(context.root + '/inits', `mjs ${context.command}\\n`); }\n",
      'hooks.ts':
        "import { appendFileSync } from 'node:fs';\nexport function onInit(context: { root: string; command: string }): void { appendFileSync(context.root + '/inits', `ts ${context.command}\\n`); }\n",
    };
    for (const [name, text] of Object.entries(hooks)) {
      writeFileSync(join(root, name), text);
      writeFileSync(
        join(root, 'federate.config.json'),
        JSON.stringify({ importHook: name, telemetry: { enabled: false } }),
      );
      // The first run compiles and leaves the cache, the second runs from it.
      for (let run = 0; run < 2; run++)
        expect(await runFed(['monitor', '--root', root, '--json'], { env }), name).toMatchObject({
          code: 0,
          stderr: '',
        });
    }
    expect(readFileSync(join(root, 'inits'), 'utf8')).toBe('mjs monitor\nmjs monitor\nts monitor\nts monitor\n');
  });

  it('a cache that cannot be written is skipped without a word', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    // A folder under a regular file can never be made.
    expect(await runFed(['--version'], { env: { FED_CODE_CACHE: join(dir, 'file', 'cache') } })).toMatchObject({
      code: 0,
      stdout: `${packageVersion()}\n`,
      stderr: '',
    });
  });
});
