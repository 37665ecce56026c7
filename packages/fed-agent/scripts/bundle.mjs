/**
 * Builds fed-agent into dist/ (`npm run build` here; fed's own build runs it after fed's): the program,
 * one CommonJS bundle, dist/agent.cjs, run by the executable, dist/main.js (the package's bin), through a
 * V8 code cache this build makes from a training run (scripts/code-cache.ts): a sandboxed agent can write
 * no cache of its own, so it gets the build's, part of the installation, read-only. Bundled with the
 * settings of fed's own programs (scripts/bundle-settings.mjs in fed's repository), fed's code taken from
 * source through the entries the agent imports (fed/agent, fed/survey, fed/lifeline, fed/v8-tiering: tsconfig.json).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { common, contentHash, functionBodyBundle } from '../../../scripts/bundle-settings.mjs';

process.chdir(join(dirname(fileURLToPath(import.meta.url)), '..'));
// Code cache names carry the bundle's content hash: a rebuild must not leave the last build's behind.
rmSync('dist', { recursive: true, force: true });

// The program (src/agent-script.ts): its executable runs it with the code cache made below.
await functionBodyBundle('src/program.ts', 'dist/agent.cjs');
const agentHash = contentHash(readFileSync('dist/agent.cjs'));
await build({
  ...common,
  // The executable is src/bin.ts, under the name the package's bin gives it.
  entryPoints: ['src/bin.ts'],
  outfile: 'dist/main.js',
  format: 'esm',
  define: { FED_AGENT_BUNDLE_HASH: JSON.stringify(agentHash) },
});
// Its code cache, made by this Node from a training run (another Node finds none and compiles). Without
// NODE_OPTIONS, whose V8 flags would make the cache one fed-agent rejects.
const { NODE_OPTIONS: _nodeOptions, ...cacheEnv } = process.env;
const made = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/code-cache.ts'], {
  env: cacheEnv,
  stdio: 'inherit',
});
if (made.status !== 0) throw new Error(`making the code cache of fed-agent failed (exit ${made.status})`);
