#!/usr/bin/env node
import { fstatSync, openSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { BROKER_ENV } from '../infra/process/broker-protocol.js';
import { runThroughBroker } from './broker-client.js';
import {
  cacheToWrite,
  codeCacheFiles,
  pruneCodeCaches,
  readCodeCache,
  writeCodeCache,
  type CacheFound,
} from './code-cache.js';
import {
  bundleFileFor,
  requestedCommand,
  SMALL_YOUNG_GENERATION_COMMANDS,
  TUNED_TIERING_COMMANDS,
} from './command-names.js';
import { chosenTiering, type Tiering } from '../infra/v8/tiering.js';
import { smallYoungGenerationArgs } from '../infra/v8/young-generation.js';

/**
 * `fed`: runs the CLI (src/cli/main.ts, bundled as CommonJS into main.cjs beside this file) through a V8
 * code cache (code-cache.ts). Node 20 caches compiled code only for its own modules; a script compiled
 * with `vm.Script` can be handed the code of an earlier run. Agents run `fed event` at every step, and
 * without the cache most of its start-up is compiling the bundle; it, the other commands agents run most
 * and `fed monitor` (a cron job's) run from bundles of their own, the CLI with only what each reaches
 * (command-names.ts, OWN_BUNDLE_COMMANDS). The packages most commands never load are in chunks beside them
 * (scripts/bundle-chunks.mjs), each loaded the same way when first needed.
 *
 * The launcher's commands (TUNED_TIERING_COMMANDS) run with fed's V8 tiering (src/infra/v8/tiering.ts), set
 * before the bundle is compiled, and their code caches are named for it: V8 rejects a cache made under
 * other flags. `fed ui`, a server that stays up, runs again in the same process with a small young
 * generation (src/infra/v8/young-generation.ts), its code cache made under that flag.
 *
 * Inside a launch's sandbox (`$FED_BROKER`), the command runs in the launcher's broker instead
 * (broker-client.ts): the bundle is not loaded at all.
 *
 * Built by scripts/bundle.mjs, which sets the content hash of the bundle and its chunks; never run from dist/src.
 */
declare const FED_CLI_BUNDLE_HASH: string;
/** Each chunk's name and length in bytes, as built. */
declare const FED_CLI_CHUNKS: Record<string, number>;

/** A script compiled through the code cache, and the cache it was handed (cacheToWrite says what it leaves). */
interface Compiled {
  script: Script;
  cacheFiles: { complete: string; provisional: string } | undefined;
  found: CacheFound;
}

if (process.env[BROKER_ENV]) runThroughBroker(process.env, process.argv.slice(2), process.cwd());
else runBundle();

function runBundle(): void {
  const command = requestedCommand(process.argv.slice(2));
  if (SMALL_YOUNG_GENERATION_COMMANDS.some((small) => small === command)) runWithSmallYoungGeneration();
  const tiering = launcherTiering(command);
  const cacheName = `${command === '--version' ? 'version' : (command ?? 'help')}${tiering?.name === 'v8-defaults' ? '.v8-defaults' : ''}`;
  const compiled: Compiled[] = [];
  // Every chunk is opened now, though most commands read none: a process that loads one hours later (a
  // launcher judging a document) reads the build it started with, even if fed was rebuilt or reinstalled
  // meanwhile — an open file keeps its content when it is deleted or replaced.
  const chunkFiles = new Map(Object.keys(FED_CLI_CHUNKS).map((name) => [name, openChunk(name)]));
  const chunks = new Map<string, Record<string, unknown>>();
  // A chunk's module for the bundle; `shared`: the bundle's modules the chunk takes, by file.
  const loadChunk = (name: string, shared: () => Record<string, () => unknown>) => {
    let modules = chunks.get(name);
    if (modules === undefined) {
      const table = shared();
      const chunk = run(chunkText(name, chunkFiles.get(name)), `${cacheName}.${name}`, compiled, (file: string) =>
        table[file]!(),
      );
      modules = (chunk.exports as { default: Record<string, unknown> }).default;
      chunks.set(name, modules);
    }
    return modules;
  };
  const bundle = run({ file: join(__dirname, bundleFileFor(command)) }, cacheName, compiled, loadChunk);

  // The first run of a command (or the first after fed or Node changed) leaves its compiled code for the
  // next; made after the command, so it holds the functions that ran, not only the top level.
  // A run an error stopped (bad input, say, before most of the command ran) leaves a provisional one only.
  void (bundle.exports as { finished: Promise<{ ranToEnd: boolean }> }).finished.then(async ({ ranToEnd }) => {
    let wrote = false;
    for (const { script, cacheFiles, found } of compiled) {
      if (cacheFiles === undefined) continue;
      const write = cacheToWrite(found, script.cachedDataRejected === true, ranToEnd);
      if (write === undefined) continue;
      const written = await writeCodeCache(
        cacheFiles[write.kind],
        script.createCachedData(),
        write.removes && cacheFiles[write.removes],
      );
      wrote ||= written;
    }
    // A run that wrote a cache is a command's first of a build (or after one was lost): older builds' go now.
    if (wrote) await pruneCodeCaches(process.env, FED_CLI_BUNDLE_HASH);
    (bundle.exports as { exitWhenDone: () => void }).exitWhenDone();
  });
}

/**
 * Runs this command again, in this process, with a small young generation (young-generation.ts), before
 * anything else: V8 sizes it only as it starts. Returns where it cannot or should not — a Node without
 * `process.execve` (before 22.15), node given a size already or an inspector (smallYoungGenerationArgs) —
 * and the command runs as it is: only memory is at stake.
 */
function runWithSmallYoungGeneration(): void {
  const { execve } = process as NodeJS.Process & {
    execve?: (file: string, args: readonly string[], env: NodeJS.ProcessEnv) => never;
  };
  const nodeArgs = smallYoungGenerationArgs(process.execArgv, process.env.NODE_OPTIONS);
  if (execve === undefined || nodeArgs === undefined) return;
  try {
    execve.call(process, process.execPath, [process.execPath, ...nodeArgs, ...process.argv.slice(1)], process.env);
  } catch {
    // The new image could not start (a resource limit): this one runs the command with V8's default size.
  }
}

/**
 * fed's V8 tiering, set for a launcher's command (none for the others); exit 2 for a FED_V8_TIERING that
 * asks for neither, before anything runs.
 */
function launcherTiering(command: ReturnType<typeof requestedCommand>): Tiering | undefined {
  if (!TUNED_TIERING_COMMANDS.some((tuned) => tuned === command)) return undefined;
  let tiering: Tiering;
  try {
    tiering = chosenTiering(process.env, process.versions.v8);
  } catch (error) {
    process.stderr.write(`fed: ${(error as Error).message}\n`);
    process.exit(2);
  }
  if (tiering.flags.length > 0) setFlagsFromString(tiering.flags.join(' '));
  return tiering;
}

/** The chunk `name` opened, or the error opening it (thrown if the chunk is ever loaded). */
function openChunk(name: string): number | Error {
  try {
    return openSync(join(__dirname, `chunk-${name}.cjs`), 'r');
  } catch (error) {
    return error as Error;
  }
}

/**
 * The text of chunk `name` from its open file, checked to be the one this bin was built with. A chunk it
 * cannot use is thrown as a description the bundle reports as fed's UnreadableFileError
 * (scripts/bundle-chunks.mjs): this bin has none of the bundle's classes.
 */
function chunkText(name: string, opened: number | Error | undefined): { file: string; text: string } {
  const file = join(__dirname, `chunk-${name}.cjs`);
  const unusable = (problem: string, fix: string) =>
    Object.assign(new Error(`${file}: ${problem}`), { unusableChunk: true, file, problem, fix });
  if (opened === undefined || opened instanceof Error)
    throw unusable(`a part of fed that cannot be opened (${opened?.message})`, 'reinstall fed');
  if (fstatSync(opened).size !== FED_CLI_CHUNKS[name])
    throw unusable(
      'a part of fed from another build than the one this command started with (fed was rebuilt or reinstalled while it ran)',
      'run the command again',
    );
  return { file, text: readFileSync(opened, 'latin1') };
}

/**
 * Runs `source` (a file beside this one, its text read from it unless given) as a CommonJS module
 * through the code cache `cacheName`, with the bundle's last parameter, `__fedLink` (for the CLI bundle:
 * the chunk loader; for a chunk: the bundle's shared modules), set to `linked`.
 */
function run(
  source: { file: string; text?: string },
  cacheName: string,
  compiled: Compiled[],
  linked: unknown,
): { exports: unknown } {
  const { file } = source;
  const cacheFiles = codeCacheFiles(process.env, FED_CLI_BUNDLE_HASH, cacheName);
  let found: CacheFound;
  let cachedData: Buffer | undefined;
  for (const kind of ['complete', 'provisional'] as const) {
    cachedData = cacheFiles && readCodeCache(cacheFiles[kind]);
    if (cachedData !== undefined) {
      found = kind;
      break;
    }
  }
  // Node's CommonJS wrapper, with import.meta.url (which the bundle reads as __fedImportMetaUrl) and the
  // link added. The bundle is ASCII (scripts/bundle.mjs checks), so Latin-1 reads it right, into a
  // one-byte string at once.
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname, __fedImportMetaUrl, __fedLink) {${source.text ?? readFileSync(file, 'latin1')}\n})`,
    { filename: file, cachedData },
  );
  compiled.push({ script, cacheFiles, found });
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    createRequire(file),
    module,
    file,
    __dirname,
    pathToFileURL(file).href,
    linked,
  );
  return module;
}
