/**
 * The `fed` bundle's chunks: packages that most commands never load (telemetry's SDK and exporters, the
 * NATS client, the MCP SDK, the Markdown parser, the agent manifests' TOML and YAML parsers), each group
 * bundled into a file of its own beside the CLI bundle, dist/bin/cli/chunk-<name>.cjs. Every command
 * deserialises the whole CLI bundle's code cache and reads its whole text, whatever it runs: what is
 * left out of it is start-up every command saves. The bin (src/cli/bin.ts) loads a chunk, through a code
 * cache of its own, when a module that imports one of its packages first initialises.
 *
 * A chunk must not carry a second copy of a module the CLI bundle has: two copies of zod or of the
 * OpenTelemetry API would be two sets of classes and two global states. So a chunk's import that resolves
 * to a file the CLI bundle holds is answered by the CLI bundle's own module (`__fedLink`), and the build
 * fails if a chunk still holds a copy of its own of a package the CLI bundle holds (buildChunks).
 */
import { relative } from 'node:path';
import { build } from 'esbuild';

/** Chunk name → the package imports of fed's code that it answers. */
export const CHUNKS = {
  otel: [
    '@opentelemetry/exporter-metrics-otlp-http',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/resources',
    '@opentelemetry/sdk-metrics',
    '@opentelemetry/sdk-trace',
  ],
  nats: ['@nats-io/jetstream', '@nats-io/jetstream/internal', '@nats-io/kv', '@nats-io/obj', '@nats-io/transport-node'],
  mcp: ['@modelcontextprotocol/server', '@modelcontextprotocol/server/stdio', '@modelcontextprotocol/core'],
  markdown: ['mdast-util-from-markdown', 'mdast-util-gfm', 'micromark-extension-gfm'],
  manifests: ['smol-toml', 'yaml'],
};

const chunkOf = new Map(Object.entries(CHUNKS).flatMap(([chunk, imports]) => imports.map((path) => [path, chunk])));
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const chunkImport = new RegExp(`^(${[...chunkOf.keys()].map(escape).join('|')})$`);

/**
 * For the CLI bundle: each import of a chunk's package becomes the chunk's module, loaded by the bin
 * (`__fedLink`) with the CLI bundle's modules it shares (`shared`: chunk name → the files it takes from
 * the CLI bundle), each handed over as `require` would give it.
 */
export function chunkImports(shared) {
  return {
    name: 'fed-chunk-imports',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: chunkImport }, (args) =>
        args.namespace === 'file' ? { path: args.path, namespace: 'fed-chunk' } : undefined,
      );
      pluginBuild.onLoad({ filter: /.*/, namespace: 'fed-chunk' }, (args) => {
        const chunk = chunkOf.get(args.path);
        // A chunk the bin cannot use (src/cli/bin.ts) is reported as fed reports a file it cannot use.
        return {
          contents: `let modules;
try {
  modules = __fedLink(${JSON.stringify(chunk)}, () => require(${JSON.stringify(`fed-shared:${chunk}`)}));
} catch (error) {
  if (!error?.unusableChunk) throw error;
  const { UnreadableFileError } = require('./src/core/errors.ts');
  throw new UnreadableFileError(error.file, error.problem, error.fix);
}
module.exports = modules[${JSON.stringify(args.path)}];`,
          loader: 'js',
          resolveDir: process.cwd(),
        };
      });
      pluginBuild.onResolve({ filter: /^fed-shared:/ }, (args) => ({
        path: args.path.slice('fed-shared:'.length),
        namespace: 'fed-shared',
      }));
      pluginBuild.onLoad({ filter: /.*/, namespace: 'fed-shared' }, (args) => ({
        contents: `module.exports = {${[...(shared[args.path] ?? [])]
          .map((file) => `${JSON.stringify(file)}: () => require(${JSON.stringify(`./${file}`)})`)
          .join(',')}};`,
        loader: 'js',
        resolveDir: process.cwd(),
      }));
    },
  };
}

/**
 * For a chunk: an import that resolves to a file of the CLI bundle (`inBundle`) is that module, handed
 * over by the bin (`__fedLink`); each one is recorded in `taken`.
 */
function sharedFromBundle(inBundle, taken) {
  return {
    name: 'fed-shared-from-bundle',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^[^.]|^\./ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData?.resolving) return undefined;
        const resolved = await pluginBuild.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { resolving: true },
        });
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file') return undefined;
        const file = relative(process.cwd(), resolved.path);
        if (!inBundle.has(file)) return undefined;
        taken.add(file);
        return { path: file, namespace: 'fed-shared-stub' };
      });
      pluginBuild.onLoad({ filter: /.*/, namespace: 'fed-shared-stub' }, (args) => ({
        contents: `module.exports = __fedLink(${JSON.stringify(args.path)});`,
        loader: 'js',
      }));
    },
  };
}

/** The package folder a bundled file is in (the last `node_modules/<name>` or `node_modules/@scope/<name>`). */
const packageOf = (file) => file.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//)?.[1];

/**
 * Files of a package the CLI bundle also holds that a chunk may hold itself: modules of their own that
 * keep no state and define no classes the bundle's copy defines — zod's v3 and mini APIs (separate
 * implementations over the shared core) and the index files that only re-export the shared modules.
 */
const OWN_FILES_OF_SHARED_PACKAGES =
  /node_modules\/zod\/(v3\/|v4\/mini\/|v4-mini\/|mini\/|v4\/index\.js$|v4\/classic\/index\.js$)/;

/**
 * Builds every chunk into `dir` with `options` (the CLI bundle's); `inBundle`: the files the CLI bundle
 * holds. Returns, per chunk, the files it takes from the CLI bundle. Throws when a file lands in two
 * chunks, or when a chunk holds a file of a package the CLI bundle holds that is not one of its own files
 * (OWN_FILES_OF_SHARED_PACKAGES): a second copy of zod's core or of the OpenTelemetry API, reached through
 * another file (a CommonJS build, a nested install), would be a second set of classes and of global state.
 */
export async function buildChunks(options, dir, inBundle) {
  const bundlePackages = new Set([...inBundle].map(packageOf).filter(Boolean));
  const shared = {};
  const owner = new Map();
  for (const [chunk, imports] of Object.entries(CHUNKS)) {
    const taken = new Set();
    const result = await build({
      ...options,
      // Imported as fed's code imports them (the `import` condition), so that what they share with the
      // CLI bundle resolves to the very files it holds.
      stdin: {
        contents: `${imports.map((path, i) => `import * as m${i} from ${JSON.stringify(path)};`).join('\n')}
export default { ${imports.map((path, i) => `${JSON.stringify(path)}: m${i}`).join(', ')} };`,
        resolveDir: process.cwd(),
        loader: 'js',
        sourcefile: `chunk-${chunk}`,
      },
      outfile: `${dir}/chunk-${chunk}.cjs`,
      metafile: true,
      plugins: [...options.plugins, sharedFromBundle(inBundle, taken)],
    });
    for (const file of Object.keys(result.metafile.inputs)) {
      const pkg = packageOf(file);
      if (pkg === undefined) continue;
      if (owner.has(file)) throw new Error(`${file} is bundled into both chunk ${owner.get(file)} and chunk ${chunk}`);
      if (bundlePackages.has(pkg) && !OWN_FILES_OF_SHARED_PACKAGES.test(file))
        throw new Error(
          `chunk ${chunk} holds ${file}, a second copy of a module of ${pkg}, which the CLI bundle holds`,
        );
      owner.set(file, chunk);
    }
    shared[chunk] = [...taken].sort();
  }
  return shared;
}
