#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { BROKER_ENV } from '../infra/process/broker-protocol.js';
import { runThroughBroker } from './broker-client.js';
import { codeCacheFile, readCodeCache, writeCodeCache } from './code-cache.js';
import { requestedCommand } from './command-names.js';

/**
 * `fed`: runs the CLI (src/cli/main.ts, bundled as CommonJS into main.cjs beside this file) through a V8
 * code cache (code-cache.ts). Node 20 caches compiled code only for its own modules; a script compiled
 * with `vm.Script` can be handed the code of an earlier run. Agents run `fed event` at every step, and
 * without the cache most of its start-up is compiling the bundle.
 *
 * Inside a launch's sandbox (`$FED_BROKER`), the command runs in the launcher's broker instead
 * (broker-client.ts): the bundle is not loaded at all.
 *
 * Built by scripts/bundle.mjs, which sets the bundle's content hash; never run from dist/src.
 */
declare const FED_CLI_BUNDLE_HASH: string;

if (process.env[BROKER_ENV]) runThroughBroker(process.env, process.argv.slice(2), process.cwd());
else runBundle();

function runBundle(): void {
  // The bundle sits beside this file (both are CommonJS: __dirname is this file's folder).
  const bundle = join(__dirname, 'main.cjs');
  const command = requestedCommand(process.argv.slice(2));
  const cacheFile = codeCacheFile(
    process.env,
    FED_CLI_BUNDLE_HASH,
    command === '--version' ? 'version' : (command ?? 'help'),
  );
  const cachedData = cacheFile === undefined ? undefined : readCodeCache(cacheFile);

  // Node's CommonJS wrapper, with import.meta.url (which the bundle reads as __fedImportMetaUrl) added. The
  // bundle is ASCII (scripts/bundle.mjs checks), so Latin-1 reads it right, into a one-byte string at once.
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname, __fedImportMetaUrl) {${readFileSync(bundle, 'latin1')}\n})`,
    {
      filename: bundle,
      cachedData,
    },
  );
  const bundleModule = { exports: {} as { finished: Promise<void> } };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    bundleModule.exports,
    createRequire(bundle),
    bundleModule,
    bundle,
    __dirname,
    pathToFileURL(bundle).href,
  );

  // The first run of a command (or the first after fed or Node changed) leaves its compiled code for the
  // next; made after the command, so it holds the functions that ran, not only the top level.
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    void bundleModule.exports.finished.then(() => writeCodeCache(cacheFile, script.createCachedData()));
  }
}
