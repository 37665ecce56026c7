/**
 * Bundles the `fed` and `fed-agent` commands into dist/bin (npm run build runs this after tsc).
 *
 * Start-up is what agents feel — they run `fed event` at every step — and on Node 20 most of it is
 * compiling module source: so the commands are bundled (one file per lazily loaded command, shared code
 * in chunks), whitespace is dropped, and zod's 40 translations of its error messages (half of zod's
 * bytes; fed reports in English and never switches locale) are left out.
 */
import { rmSync } from 'node:fs';
import { build } from 'esbuild';

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

// Chunk names carry a content hash: a rebuild must not leave the last build's chunks behind.
rmSync('dist/bin', { recursive: true, force: true });

await build({
  entryPoints: ['src/cli/main.ts', 'src/agent/main.ts'],
  outbase: 'src',
  outdir: 'dist/bin',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minifyWhitespace: true,
  minifySyntax: true,
  // tsx registers module hooks for importHook files, and the Stately inspector is optional: both load
  // from node_modules when used.
  external: ['tsx', '@statelyai/inspect'],
  // Bundled CommonJS packages call require(); in an ES module it has to be made.
  banner: { js: "import { createRequire as __fedCreateRequire } from 'node:module'; const require = __fedCreateRequire(import.meta.url);" },
  plugins: [englishOnlyZod],
  logLevel: 'warning',
});
