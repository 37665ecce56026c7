/**
 * Bundles the `fed` and `fed-agent` commands into dist/bin, and the dashboard page into dist/ui
 * (scripts/ui-bundle.mjs); npm run build runs this after tsc.
 *
 * Start-up is what agents feel — they run `fed event` at every step — and on Node 20 most of it is
 * compiling module source. So:
 * - `fed` is one CommonJS bundle, dist/bin/cli/main.cjs, run by a small bin, dist/bin/cli/fed.cjs, through a
 *   V8 code cache (src/cli/bin.ts): a later run of a command skips compiling what its first run compiled.
 *   Every module reached only by `import()` (each command, the OpenTelemetry SDK, the Markdown parser…)
 *   stays behind a lazy initialiser in the bundle: it runs only when that import() does.
 * - `fed-agent` is one CommonJS bundle too, dist/bin/agent/agent.cjs, run by dist/bin/agent/main.js through
 *   a V8 code cache this build makes (scripts/agent-code-cache.mjs): a sandboxed agent can write no cache
 *   of its own, so it gets the build's, part of the installation, read-only.
 * - Whitespace is dropped, and zod's 40 translations of its error messages (half of zod's bytes; fed
 *   reports in English and never switches locale) are left out.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
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
 * `node:child_process` loaded on first use: commander and a few fed modules require it as they load, and
 * loading it (with net, dgram and streams behind it) is a measurable part of a `fed event` that spawns
 * nothing. Every use in the bundle reads a property at call time (`childProcess.spawn(…)`), so the module
 * is replaced by one whose properties load the real one when first read.
 */
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(pluginBuild) {
    const keys = Object.keys(createRequire(import.meta.url)('node:child_process'));
    pluginBuild.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.namespace === 'lazy-child-process'
        ? { path: 'node:child_process', external: true }
        : { path: 'child_process', namespace: 'lazy-child-process' },
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lazy-child-process' }, () => ({
      contents: `let real;
for (const key of ${JSON.stringify(keys)}) Object.defineProperty(module.exports, key, { enumerable: true, get: () => (real ??= require('node:child_process'))[key] });`,
      loader: 'js',
    }));
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
  plugins: [englishOnlyZod],
  logLevel: 'warning',
};

// Code cache names carry the bundle's content hash: a rebuild must not leave the last build's behind.
rmSync('dist/bin', { recursive: true, force: true });

/**
 * A program bundled as the body of a CommonJS function, which its executable compiles with a code cache
 * (Node 20 keeps none for ES modules); the executable passes in import.meta.url, which CommonJS has not.
 */
const functionBodyBundle = (entryPoint, outfile) =>
  build({
    ...common,
    entryPoints: [entryPoint],
    outfile,
    format: 'cjs',
    define: { 'import.meta.url': '__fedImportMetaUrl' },
    supported: { 'dynamic-import': false },
    plugins: [...common.plugins, lazyChildProcess],
  });

/** A bundle's content hash, told to its executable: a code cache made from another build is never offered to V8. */
const contentHash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

// The CLI, compiled by its bin with the code cache each command leaves.
await functionBodyBundle('src/cli/main.ts', 'dist/bin/cli/main.cjs');

// The bin reads the bundle as Latin-1 (a one-byte string, the fastest to make), right only for ASCII:
// esbuild escapes every other character in code, and nothing may slip through in a comment.
const bundleText = readFileSync('dist/bin/cli/main.cjs');
const nonAscii = bundleText.findIndex((byte) => byte > 0x7f);
if (nonAscii !== -1)
  throw new Error(`dist/bin/cli/main.cjs has a non-ASCII byte at offset ${nonAscii}: the fed bin reads it as Latin-1`);

// The bin, told the bundle's content hash.
const bundleHash = contentHash(bundleText);
await build({
  ...common,
  entryPoints: ['src/cli/bin.ts'],
  outfile: 'dist/bin/cli/fed.cjs',
  format: 'cjs',
  define: { FED_CLI_BUNDLE_HASH: JSON.stringify(bundleHash) },
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
// Its code cache, made by this Node (another Node finds none and compiles): every function compiled,
// none run. Without NODE_OPTIONS, whose V8 flags would make the cache one fed-agent rejects.
const { NODE_OPTIONS: _nodeOptions, ...cacheEnv } = process.env;
const { agentCodeCacheName } = await import('../dist/src/apps/agent/agent-script.js');
const made = spawnSync(
  process.execPath,
  ['scripts/agent-code-cache.mjs', 'dist/bin/agent/agent.cjs', `dist/bin/agent/${agentCodeCacheName(agentHash)}`],
  { env: cacheEnv, stdio: 'inherit' },
);
if (made.status !== 0) throw new Error(`making the code cache of fed-agent failed (exit ${made.status})`);

// The dashboard page, for `fed ui`.
await buildUi();
