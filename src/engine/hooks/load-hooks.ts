import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FedError, RefusedError } from '../../core/errors.js';
import type { FederationConfig } from '../../core/schema/config.js';
import { HOOK_NAMES, type FederationHooks, type HookContext } from './federation-hooks.js';
import { nativeImport } from './native-import.js';

/** A hook module that could not be loaded or whose hook threw: names the hook file. */
export class HookError extends FedError {
  constructor(file: string, what: string, cause: unknown) {
    super('HOOK_FAILED', `importHook ${file}: ${what}: ${(cause as Error)?.message ?? String(cause)}`, {
      refusal: false,
      cause,
    });
  }
}

export interface LoadedHooks {
  file: string | undefined;
  hooks: FederationHooks;
  /**
   * Call a notification hook (everything but onInit). A throwing hook never disturbs the caller — the
   * state it reports on is already saved — and comes back as a warning naming the hook file.
   */
  notify<K extends Exclude<keyof FederationHooks, 'onInit'>>(
    name: K,
    ...args: Parameters<NonNullable<FederationHooks[K]>>
  ): Promise<string | undefined>;
}

/** How long a hook (or loading the hook module) may take before fed stops waiting for it. */
export const HOOK_TIMEOUT_MS = 10_000;

export interface LoadHooksOptions {
  /** Default HOOK_TIMEOUT_MS. */
  timeoutMs?: number;
}

/**
 * `work`, or a rejection once `timeoutMs` passed: a hook whose promise never settles must not hold a
 * command forever (nor let it end silently when nothing else keeps the process alive).
 */
class HookTimeout extends Error {}

async function withinTime<T>(work: () => Promise<T> | T, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new HookTimeout(`it did not settle within ${timeoutMs} ms; fix the hook or remove importHook`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(work), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

async function importModule(file: string): Promise<Record<string, unknown>> {
  if (TYPESCRIPT.has(extname(file))) {
    // tsx's API compiles the module (and what it imports) on the fly, without touching global loaders.
    const { tsImport } = (await nativeImport('tsx/esm/api')) as typeof import('tsx/esm/api');
    return (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>;
  }
  return (await nativeImport(pathToFileURL(file).href)) as Record<string, unknown>;
}

/**
 * Load the federation's `importHook` module (relative paths are from the federation root) and run its
 * `onInit`. No importHook → no hooks. A missing file, a module that fails to load, an export named like a
 * hook that is not a function, or a throwing onInit → an error naming the hook file.
 */
export async function loadHooks(
  root: string,
  config: FederationConfig,
  command: string,
  options: LoadHooksOptions = {},
): Promise<LoadedHooks> {
  const timeoutMs = options.timeoutMs ?? HOOK_TIMEOUT_MS;
  const none: LoadedHooks = { file: undefined, hooks: {}, notify: async () => undefined };
  if (!config.importHook) return none;
  const file = resolve(root, config.importHook);
  if (!existsSync(file)) {
    throw new RefusedError(
      'HOOK_MISSING',
      `importHook ${file} (from federate.config.json) does not exist; fix the path or remove importHook`,
    );
  }
  let module: Record<string, unknown>;
  try {
    module = await withinTime(() => importModule(file), timeoutMs);
  } catch (error) {
    throw new HookError(
      file,
      error instanceof HookTimeout ? 'loading the module timed out' : 'could not be loaded',
      error,
    );
  }
  const hooks: FederationHooks = {};
  for (const name of HOOK_NAMES) {
    const hook = module[name] ?? (module.default as Record<string, unknown> | undefined)?.[name];
    if (hook === undefined) continue;
    if (typeof hook !== 'function')
      throw new RefusedError(
        'HOOK_INVALID',
        `importHook ${file}: export ${name} must be a function, got ${typeof hook}`,
      );
    (hooks as Record<string, unknown>)[name] = hook;
  }
  const context: HookContext = { root, config, command };
  try {
    await withinTime(() => hooks.onInit?.(context), timeoutMs);
  } catch (error) {
    throw new HookError(file, error instanceof HookTimeout ? 'onInit timed out' : 'onInit threw', error);
  }
  return {
    file,
    hooks,
    async notify(name, ...args) {
      const hook = hooks[name] as ((...a: unknown[]) => unknown) | undefined;
      try {
        await withinTime(() => hook?.(...args), timeoutMs);
        return undefined;
      } catch (error) {
        return `importHook ${file}: ${name} ${error instanceof HookTimeout ? 'timed out' : 'threw'}: ${(error as Error)?.message ?? String(error)}`;
      }
    },
  };
}
