/**
 * Bundles the `fed` command into dist/bin/cli, and the dashboard page into dist/ui (scripts/ui-bundle.mjs);
 * npm run build runs this after tsc, then builds the built-in agent, a package of its own
 * (packages/fed-agent), with the same settings (scripts/bundle-settings.mjs).
 *
 * Start-up is what agents feel — they run `fed event` at every step — and on Node 20 most of it is
 * compiling module source. So `fed` is one CommonJS bundle, dist/bin/cli/main.cjs, run by a small bin,
 * dist/bin/cli/fed.cjs, through a V8 code cache (src/cli/bin.ts): a later run of a command skips compiling
 * what its first run compiled. Every module reached only by `import()` (each command…) stays behind a lazy
 * initialiser in the bundle: it runs only when that import() does. Yet every command reads the whole
 * bundle's text and deserialises a code cache that holds every function declared at its top level, so
 * `fed event`, which agents run at every step, has a bundle of its own without the other commands (about
 * half the size: 3.6 ms of its ~95), and so do `fed signal` and `fed team` (~2 %) and `fed monitor`, which
 * a cron job runs every few minutes (~4 %). The packages most
 * commands never load (the OpenTelemetry SDK, the Markdown parser…) are chunks beside the bundles
 * (scripts/bundle-chunks.mjs).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { buildChunks, CHUNKS, chunkImports } from './bundle-chunks.mjs';
import { common, contentHash, functionBody, functionBodyBundle, lazyBuiltins } from './bundle-settings.mjs';
import { buildUi } from './ui-bundle.mjs';

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

// The agent's watchdog (src/apps/launch/supervise/agent-watchdog.ts) in one file: every agent is started
// by it, so waits for its start, and node loads one CommonJS file sooner than its four ES modules (about
// 60 ms at a load of 8 on 2 cores; docs/operations.md, dispatch latency).
await build({
  ...common,
  entryPoints: ['src/apps/launch/supervise/agent-watchdog.ts'],
  outfile: 'dist/bin/agent-watchdog.cjs',
  format: 'cjs',
});

// The dashboard page, for `fed ui`.
await buildUi();
