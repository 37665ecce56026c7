#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { constants, Script } from 'node:vm';
import { codeCacheFile, readCodeCache, writeCodeCache } from './code-cache.js';
import { requestedCommand } from './command-names.js';

/**
 * `fed`: runs the CLI (src/cli/main.ts, bundled as CommonJS into main.cjs beside this file) through a V8
 * code cache (code-cache.ts). Node 20 caches compiled code only for its own modules; a script compiled
 * with `vm.Script` can be handed the code of an earlier run. Agents run `fed event` at every step, and
 * without the cache most of its start-up is compiling the bundle.
 *
 * Built by scripts/bundle.mjs, which sets the bundle's content hash; never run from dist/src.
 */
declare const FED_CLI_BUNDLE_HASH: string;

// The bundle sits beside this file (both are CommonJS: __dirname is this file's folder).
const bundle = join(__dirname, 'main.cjs');
const command = requestedCommand(process.argv.slice(2));
const cacheFile = codeCacheFile(process.env, FED_CLI_BUNDLE_HASH, command === '--version' ? 'version' : (command ?? 'help'));
const cachedData = cacheFile === undefined ? undefined : readCodeCache(cacheFile);

// Dynamic import() inside the script (an importHook file, the Stately inspector, node:http for the OTLP
// export) goes to Node's own loader. Node 20 calls that option experimental and warns at the first
// import(); the warning is about this implementation detail, not anything the user did, so only it is dropped.
const emitWarning = process.emitWarning;
process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
  const message = typeof warning === 'string' ? warning : warning.message;
  if (message.startsWith('vm.USE_MAIN_CONTEXT_DEFAULT_LOADER ')) return;
  return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
} as typeof process.emitWarning;

// Node's CommonJS wrapper, with import.meta.url (which the bundle reads as __fedImportMetaUrl) added.
const script = new Script(`(function (exports, require, module, __filename, __dirname, __fedImportMetaUrl) {${readFileSync(bundle, 'latin1')}\n})`, {
  filename: bundle,
  cachedData,
  importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const bundleModule = { exports: {} as { finished: Promise<void> } };
(script.runInThisContext() as (...args: unknown[]) => void)(bundleModule.exports, createRequire(bundle), bundleModule, bundle, __dirname, pathToFileURL(bundle).href);

// The first run of a command (or the first after fed or Node changed) leaves its compiled code for the
// next; made after the command, so it holds the functions that ran, not only the top level.
if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
  void bundleModule.exports.finished.then(() => writeCodeCache(cacheFile, script.createCachedData()));
}
