import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFed, type FedResult } from './fed-cli.js';
import { tempDir } from './temp-dir.js';

/**
 * Runs the built `fed` with `args`, as `runFed` does, and tells which of Node's own modules it loaded
 * (process.moduleLoadList, written as it exits).
 */
export async function fedLoadedModules(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ result: FedResult; modules: string[] }> {
  const dir = tempDir();
  const preload = join(dir, 'loaded.cjs');
  const loaded = join(dir, 'loaded.txt');
  writeFileSync(
    preload,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join('\\n')));\n`,
  );
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(preload)}`.trim();
  const result = await runFed(args, { env: { ...env, NODE_OPTIONS: nodeOptions } });
  return { result, modules: readFileSync(loaded, 'utf8').split('\n') };
}

/**
 * Whether any of node:crypto was loaded: the module, its internals or its binding. Touching the global
 * `crypto` (webcrypto) loads most of it without `NativeModule crypto`; a bare node start loads none.
 */
export function loadsCrypto(modules: readonly string[]): boolean {
  return modules.some((name) => name.includes('crypto'));
}
