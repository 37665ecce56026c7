/**
 * The esbuild settings fed's programs are bundled with: the `fed` CLI (scripts/bundle.mjs) and the
 * built-in agent, `fed-agent` (packages/fed-agent/scripts/bundle.mjs). Start-up is what agents feel, and
 * on Node 20 most of it is compiling module source, so:
 * - whitespace is dropped, and zod's 40 translations of its error messages (half of zod's bytes; fed
 *   reports in English and never switches locale) are left out, as are its code generator and its
 *   converter from JSON Schema (another sixth; fed parses jitless and only writes JSON Schema);
 * - a program is bundled as the body of a CommonJS function, which its executable compiles with a V8 code
 *   cache (Node 20 keeps none for ES modules), Node's modules that most runs never use loaded on first use.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
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
 * `net`, `fs/promises` (which loads readline and fs watchers), `timers/promises`, the network stack only
 * telemetry and chat use, and `v8` (only the launcher's commands set its flags, in the bin). Loading them
 * is a measurable part of a `fed event` that touches none of them. Every use in the bundles reads a
 * property at call time (`childProcess.spawn(…)`), so each module is replaced by one whose properties load
 * the real one when first read.
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
  'v8',
];
export const lazyBuiltins = {
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
 * No import() inside a program's bundle: its executable runs it in a vm.Script, where on Node 20 import()
 * fails once the code comes from the code cache. Imports of packages and Node's modules become require()
 * (`supported` below); ES modules that must be imported (a user's importHook, tsx's API) are imported by
 * the hook worker (src/engine/hooks/hook-worker.ts), whose code is a string Node compiles on its own.
 */

export const common = {
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
 * A program bundled as the body of a CommonJS function, which its executable compiles with a code cache
 * (Node 20 keeps none for ES modules); the executable passes in import.meta.url, which CommonJS has not.
 */
export const functionBody = {
  ...common,
  format: 'cjs',
  define: { 'import.meta.url': '__fedImportMetaUrl' },
  supported: { 'dynamic-import': false },
  metafile: true,
  plugins: [...common.plugins, lazyBuiltins],
};
export const functionBodyBundle = (entryPoint, outfile, plugins = []) =>
  build({ ...functionBody, entryPoints: [entryPoint], outfile, plugins: [...functionBody.plugins, ...plugins] });

/** A bundle's content hash, told to its executable: a code cache made from another build is never offered to V8. */
export const contentHash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);
