import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { FedError, RefusedError } from '../../core/errors.js';
import type { FederationConfig } from '../../core/schema/config.js';
import { HOOK_NAMES, type FederationHooks, type HookContext } from './federation-hooks.js';
import { HookTimeout, HookWorker } from './hook-worker.js';

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
  /** The hooks the module exports (run in its worker thread, not here). */
  hooks: readonly (keyof FederationHooks)[];
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
 * Load the federation's `importHook` module (relative paths are from the federation root) and run its
 * `onInit`. No importHook → no hooks. A missing file, a module that fails to load, an export named like a
 * hook that is not a function, or a throwing onInit → an error naming the hook file. The module runs in a
 * worker thread (hook-worker.ts), so a hook that loops forever is stopped at the deadline like one whose
 * promise never settles.
 */
export async function loadHooks(
  root: string,
  config: FederationConfig,
  command: string,
  options: LoadHooksOptions = {},
): Promise<LoadedHooks> {
  const timeoutMs = options.timeoutMs ?? HOOK_TIMEOUT_MS;
  const none: LoadedHooks = { file: undefined, hooks: [], notify: async () => undefined };
  if (!config.importHook) return none;
  const file = resolve(root, config.importHook);
  if (!existsSync(file)) {
    throw new RefusedError(
      'HOOK_MISSING',
      `importHook ${file} (from federate.config.json) does not exist; fix the path or remove importHook`,
    );
  }
  let loaded: Awaited<ReturnType<typeof HookWorker.start>>;
  try {
    loaded = await HookWorker.start(file, timeoutMs);
  } catch (error) {
    throw new HookError(
      file,
      error instanceof HookTimeout ? 'loading the module timed out' : 'could not be loaded',
      error,
    );
  }
  const { worker, kinds } = loaded;
  const hooks = HOOK_NAMES.filter((name) => kinds[name] !== undefined);
  for (const name of hooks) {
    if (kinds[name] !== 'function') {
      await worker.stop();
      throw new RefusedError(
        'HOOK_INVALID',
        `importHook ${file}: export ${name} must be a function, got ${kinds[name]}`,
      );
    }
  }
  const context: HookContext = { root, config, command };
  try {
    if (hooks.includes('onInit')) await worker.call('onInit', [context]);
  } catch (error) {
    await worker.stop();
    throw new HookError(file, error instanceof HookTimeout ? 'onInit timed out' : 'onInit threw', error);
  }
  return {
    file,
    hooks,
    async notify(name, ...args) {
      if (!hooks.includes(name)) return undefined;
      try {
        await worker.call(name, args);
        return undefined;
      } catch (error) {
        return `importHook ${file}: ${name} ${error instanceof HookTimeout ? 'timed out' : 'threw'}: ${(error as Error)?.message ?? String(error)}`;
      }
    },
  };
}
