/**
 * Bundles the `fed` and `fed-agent` commands into dist/bin, and the dashboard page into dist/ui
 * (scripts/ui-bundle.mjs); npm run build runs this after tsc.
 *
 * Start-up is what agents feel — they run `fed event` at every step — and on Node 20 most of it is
 * compiling module source. So:
 * - `fed` is one CommonJS bundle, dist/bin/cli/main.cjs, run by a small bin, dist/bin/cli/fed.cjs, through a
 *   V8 code cache (src/cli/bin.ts): a later run of a command skips compiling what its first run compiled.
 *   Every module reached only by `import()` (each command…) stays behind a lazy initialiser in the bundle:
 *   it runs only when that import() does. Yet every command reads the whole bundle's text and
 *   deserialises a code cache that holds every function declared at its top level, so `fed event`, which
 *   agents run at every step, has a bundle of its own without the other commands (about half the size:
 *   3.6 ms of its ~95), and so do `fed signal` and `fed team` (~2 %). The packages most commands never
 *   load (the OpenTelemetry SDK, the Markdown parser…) are chunks beside the bundles
 *   (scripts/bundle-chunks.mjs).
 * - `fed-agent` is one CommonJS bundle too, dist/bin/agent/agent.cjs, run by dist/bin/agent/main.js through
 *   a V8 code cache this build makes from a training run (scripts/agent-code-cache.mjs): a sandboxed agent
 *   can write no cache of its own, so it gets the build's, part of the installation, read-only.
 * - Whitespace is dropped, and zod's 40 translations of its error messages (half of zod's bytes; fed
 *   reports in English and never switches locale) are left out, as are its code generator and its
 *   converter from JSON Schema (another sixth; fed parses jitless and only writes JSON Schema).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { buildChunks, CHUNKS, chunkImports } from './bundle-chunks.mjs';
import { buildUi } from './ui-bundle.mjs';

/** zod's `z.locales` namespace, reduced to the English messages that are zod's default. */
const englishOnlyZod = {
  name: 'zod-english-only',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('/node_modules/zod/') ? { path: 'zod-locales', namespace: 'zod-english-only' } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: process.cwd(),
    }));
  },
};

/**
 * zod's modules fed never runs: its code generator (`z.compile`; fed parses jitless) and the converter
 * from JSON Schema to zod (`z.fromJSONSchema`), a sixth of zod's bytes, in every bundle only because the
 * `z` namespace re-exports them. Each becomes a module of the same exports, each of which throws if used.
 */
const ZOD_UNUSED = ['v4/core/compile.js', 'v4/classic/from-json-schema.js'];
const zodUnused = {
  name: 'zod-unused',
  setup(pluginBuild) {
    const unused = new RegExp(
      `/node_modules/zod/(${ZOD_UNUSED.map((file) => file.replaceAll('.', '\\.')).join('|')})$`,
    );
    pluginBuild.onLoad({ filter: unused }, async (args) => {
      const names = Object.keys(await import(pathToFileURL(args.path).href));
      const stub = (name) =>
        `export const ${name} = function () { throw new Error(${JSON.stringify(`zod's ${name} is left out of fed's bundles (scripts/bundle.mjs)`)}); };`;
      return { contents: names.map(stub).join('\n'), loader: 'js' };
    });
  },
};

/**
 * uuid's portable build for fed's own `uuid` imports, in place of its build for Node: the two make the
 * same ids, but the one for Node hashes a name-based id (v5: every report's) with node:crypto, which a
 * command that needs nothing else of it loads for ~3 ms (src/infra/crypto/random.ts); the portable one
 * hashes in JavaScript. A package's own `uuid` import (another version, maybe) resolves as usual.
 */
const uuidPackage = createRequire(import.meta.url).resolve('uuid/package.json');
const portableUuid = join(dirname(uuidPackage), JSON.parse(readFileSync(uuidPackage, 'utf8')).exports['.'].default);
const uuidPortable = {
  name: 'uuid-portable',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^uuid$/ }, (args) =>
      args.importer.includes(`${sep}node_modules${sep}`) ? undefined : { path: portableUuid },
    );
  },
};

/**
 * Node's modules that most commands never use, each loaded on first use: `child_process` (commander and
 * a few fed modules require it as they load; it brings net, dgram and streams), `crypto` (ids, digests),
 * `net`, `fs/promises` (which loads readline and fs watchers), `timers/promises`, and the network stack
 * only telemetry and chat use. Loading them is a measurable part of a `fed event` that touches none of
 * them. Every use in the bundles reads a property at call time (`childProcess.spawn(…)`), so each module
 * is replaced by one whose properties load the real one when first read.
 */
const LAZY_BUILTINS = [
  'child_process',
  'crypto',
  'net',
  'fs/promises',
  'timers/promises',
  'http',
  'https',
  'zlib',
  'tls',
  'dns',
  'worker_threads',
];
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(pluginBuild) {
    const lazyName = new RegExp(`^(node:)?(${LAZY_BUILTINS.join('|')})$`);
    pluginBuild.onResolve({ filter: lazyName }, (args) => {
      const name = args.path.replace(/^node:/, '');
      return args.namespace === 'lazy-builtins'
        ? { path: `node:${name}`, external: true }
        : { path: name, namespace: 'lazy-builtins' };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-builtins' }, (args) => {
      const real = `node:${args.path}`;
      // Every own name, enumerable or not (zlib's constants are not). Writing to such a module is not supported.
      const keys = Object.getOwnPropertyNames(createRequire(import.meta.url)(real));
      return {
        contents: `let real;
for (const key of ${JSON.stringify(keys)}) Object.defineProperty(module.exports, key, { enumerable: true, get: () => (real ??= require(${JSON.stringify(real)}))[key] });`,
        loader: 'js',
      };
    });
  },
};

/*
 * No import() inside the CLI bundle: the bin runs it in a vm.Script, where on Node 20 import() fails
 * once the code comes from the code cache. Imports of packages and Node's modules become require()
 * (`supported` below); ES modules that must be imported (a user's importHook, tsx's API) are imported by
 * the hook worker (src/engine/hooks/hook-worker.ts), whose code is a string Node compiles on its own.
 */

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  // tsx registers module hooks for importHook files, and the Stately inspector is optional: both load
  // from node_modules when used.
  external: ['tsx', '@statelyai/inspect'],
  plugins: [englishOnlyZod, zodUnused, uuidPortable],
  logLevel: 'warning',
};

/**
 * For the bundle of `command` alone (src/cli/command-names.ts, OWN_BUNDLE_COMMANDS): every other command's
 * module, as the program imports it, is left out, and fails if ever loaded. The bin runs no other
 * command from that bundle.
 */
const onlyCommand = (command) => ({
  name: 'fed-only-command',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\/commands\/[\w-]+\.js$/ }, (args) => {
      const name = args.path.slice('./commands/'.length, -'.js'.length);
      if (name === command || relative(process.cwd(), args.importer) !== join('src', 'cli', 'program.ts'))
        return undefined;
      return { path: name, namespace: 'fed-other-command' };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'fed-other-command' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`fed ${args.path} is not in the bundle of fed ${command} (scripts/bundle.mjs)`)});`,
      loader: 'js',
    }));
  },
});

// Code cache names carry the bundle's content hash: a rebuild must not leave the last build's behind.
rmSync('dist/bin', { recursive: true, force: true });

/**
 * A program bundled as the body of a CommonJS function, which its executable compiles with a code cache
 * (Node 20 keeps none for ES modules); the executable passes in import.meta.url, which CommonJS has not.
 */
const functionBody = {
  ...common,
  format: 'cjs',
  define: { 'import.meta.url': '__fedImportMetaUrl' },
  supported: { 'dynamic-import': false },
  metafile: true,
  plugins: [...common.plugins, lazyBuiltins],
};
const functionBodyBundle = (entryPoint, outfile, plugins = []) =>
  build({ ...functionBody, entryPoints: [entryPoint], outfile, plugins: [...functionBody.plugins, ...plugins] });

/** A bundle's content hash, told to its executable: a code cache made from another build is never offered to V8. */
const contentHash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

// The CLI, compiled by its bin with the code cache each command leaves, and its chunks
// (scripts/bundle-chunks.mjs): first the files the CLI bundle holds, then the chunks, which take those
// from it, then the bundle, which hands them over.
const cliGraph = await build({
  ...functionBody,
  entryPoints: ['src/cli/main.ts'],
  write: false,
  metafile: true,
  plugins: [...functionBody.plugins, chunkImports({})],
});
const shared = await buildChunks(functionBody, 'dist/bin/cli', new Set(Object.keys(cliGraph.metafile.inputs)));
await functionBodyBundle('src/cli/main.ts', 'dist/bin/cli/main.cjs', [chunkImports(shared)]);
// Each command with a bundle of its own: the same CLI, every other command left out. Its chunks are the
// ones above: what a chunk takes from the CLI bundle, this bundle's table of shared modules holds too.
const { OWN_BUNDLE_COMMANDS } = await import('../dist/src/cli/command-names.js');
for (const command of OWN_BUNDLE_COMMANDS)
  await functionBodyBundle('src/cli/main.ts', `dist/bin/cli/${command}.cjs`, [
    chunkImports(shared),
    onlyCommand(command),
  ]);

// The bin reads the bundles as Latin-1 (a one-byte string, the fastest to make), right only for ASCII:
// esbuild escapes every other character in code, and nothing may slip through in a comment.
const chunkFile = (chunk) => `dist/bin/cli/chunk-${chunk}.cjs`;
const cliFiles = [
  'dist/bin/cli/main.cjs',
  ...OWN_BUNDLE_COMMANDS.map((command) => `dist/bin/cli/${command}.cjs`),
  ...Object.keys(CHUNKS).map(chunkFile),
];
const cliTexts = new Map(cliFiles.map((file) => [file, readFileSync(file)]));
for (const [file, text] of cliTexts) {
  const nonAscii = text.findIndex((byte) => byte > 0x7f);
  if (nonAscii !== -1)
    throw new Error(`${file} has a non-ASCII byte at offset ${nonAscii}: the fed bin reads it as Latin-1`);
}

// The bin, told the content hash of the bundles and chunks together (a code cache is of one build).
const bundleHash = contentHash(Buffer.concat([...cliTexts.values()]));
await build({
  ...common,
  entryPoints: ['src/cli/bin.ts'],
  outfile: 'dist/bin/cli/fed.cjs',
  format: 'cjs',
  define: {
    FED_CLI_BUNDLE_HASH: JSON.stringify(bundleHash),
    // Each chunk's length: the bin opens every chunk as it starts and refuses one of another build.
    FED_CLI_CHUNKS: JSON.stringify(
      Object.fromEntries(Object.keys(CHUNKS).map((chunk) => [chunk, cliTexts.get(chunkFile(chunk)).length])),
    ),
  },
  // `net` only for a command run through the broker.
  plugins: [...common.plugins, lazyBuiltins],
});

// The agent likewise (src/apps/agent/agent-script.ts): its executable runs it with the code cache made below.
await functionBodyBundle('src/apps/agent/program.ts', 'dist/bin/agent/agent.cjs');
const agentHash = contentHash(readFileSync('dist/bin/agent/agent.cjs'));
await build({
  ...common,
  // The executable is agent/bin.ts, under the name the package's bin gives it.
  entryPoints: ['src/apps/agent/bin.ts'],
  outfile: 'dist/bin/agent/main.js',
  format: 'esm',
  define: { FED_AGENT_BUNDLE_HASH: JSON.stringify(agentHash) },
});
// Its code cache, made by this Node from a training run (another Node finds none and compiles). Without
// NODE_OPTIONS, whose V8 flags would make the cache one fed-agent rejects.
const { NODE_OPTIONS: _nodeOptions, ...cacheEnv } = process.env;
const made = spawnSync(process.execPath, ['scripts/agent-code-cache.mjs'], { env: cacheEnv, stdio: 'inherit' });
if (made.status !== 0) throw new Error(`making the code cache of fed-agent failed (exit ${made.status})`);

// The dashboard page, for `fed ui`.
await buildUi();
