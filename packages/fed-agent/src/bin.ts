#!/usr/bin/env node
/**
 * The `fed-agent` executable (bundled as dist/main.js): the launcher's lifeline watched first
 * (lifeline.ts), V8's tiering set next (fed/v8-tiering: also what the code cache was made under, so part
 * of its name), then the program (program.ts, bundled as agent.cjs beside this file) run through the V8
 * code cache the build made for it (agent-script.ts). The cache is part of the installation, made by
 * the build from a training run (scripts/code-cache.ts, which sets CODE_CACHE_OUT_ENV for it), and
 * only ever read: an agent runs in a sandbox that mounts the installation read-only, so no agent can write
 * compiled code another team's agent would run. A missing cache (another Node than the build's) or one V8
 * rejects only means compiling, as without one; so does a damaged one (its digest does not match).
 *
 * Built by scripts/bundle.mjs, which sets the bundle's content hash; never run from source.
 */
import './lifeline.js';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { agentCodeCacheName, agentScript, CODE_CACHE_OUT_ENV, openCodeCache, sealCodeCache } from './agent-script.js';
import { chosenTiering, type Tiering } from 'fed/v8-tiering';

declare const FED_AGENT_BUNDLE_HASH: string;

const tiering = tieringOrExit();
if (tiering.flags.length > 0) setFlagsFromString(tiering.flags.join(' '));
const here = dirname(fileURLToPath(import.meta.url));
const bundle = join(here, 'agent.cjs');
const cacheName = agentCodeCacheName(FED_AGENT_BUNDLE_HASH, tiering.name);
let cachedData: Buffer | undefined;
try {
  cachedData = openCodeCache(readFileSync(join(here, cacheName)));
} catch {
  // No cache for this Node: the bundle is compiled as it runs.
}
// The build's training run: the folder where to leave the code this run compiles, under the name a later
// run reads it by (read before the program runs, and not passed on to what it runs).
const cacheOut = process.env[CODE_CACHE_OUT_ENV];
delete process.env[CODE_CACHE_OUT_ENV];
const script = agentScript(bundle, readFileSync(bundle, 'utf8'), cacheOut === undefined ? cachedData : undefined);
const bundleModule = { exports: {} as { finished: Promise<void> } };
(script.runInThisContext() as (...args: unknown[]) => void)(
  bundleModule.exports,
  createRequire(bundle),
  bundleModule,
  bundle,
  here,
  pathToFileURL(bundle).href,
);
if (cacheOut !== undefined) void bundleModule.exports.finished.then(() => leaveCodeCache(join(cacheOut, cacheName)));

/** The tiering asked for, or exit 2 (a bad start) saying what is wrong with the ask. */
function tieringOrExit(): Tiering {
  try {
    return chosenTiering(process.env, process.versions.v8);
  } catch (error) {
    process.stderr.write(`fed-agent: ${(error as Error).message}\n`);
    process.exit(2);
  }
}

/**
 * The training run's cache, written whole or not at all (a temp file renamed over it); a failure is said
 * and leaves the agent's outcome as it was: the cache is only an optimisation.
 */
function leaveCodeCache(file: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, sealCodeCache(script.createCachedData()));
    renameSync(temp, file);
  } catch (error) {
    rmSync(temp, { force: true });
    process.stderr.write(`fed-agent: the code cache was not written to ${file}: ${(error as Error).message}\n`);
  }
}
