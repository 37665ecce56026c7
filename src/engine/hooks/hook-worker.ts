import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HOOK_NAMES } from './federation-hooks.js';

/**
 * The worker's own code, as source text (a file of its own would have to be found next to the bundle): it
 * imports the hook module — through tsx's API for TypeScript — reports what the hook names export, then
 * runs each call it is sent and answers when the hook settled.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { file, tsxApi, names } = workerData;
const errorText = (error) => (error && error.message) || String(error);
(async () => {
  let module;
  try {
    module = tsxApi
      ? await (await import(tsxApi)).tsImport(file, file)
      : await import(file);
  } catch (error) {
    parentPort.postMessage({ id: 0, error: errorText(error) });
    return;
  }
  const hooks = {};
  const kinds = {};
  for (const name of names) {
    const hook = module[name] ?? (module.default ? module.default[name] : undefined);
    if (hook === undefined) continue;
    kinds[name] = typeof hook;
    if (typeof hook === 'function') hooks[name] = hook;
  }
  parentPort.on('message', async ({ id, name, args }) => {
    try {
      await hooks[name]?.(...args);
      parentPort.postMessage({ id });
    } catch (error) {
      parentPort.postMessage({ id, error: errorText(error) });
    }
  });
  parentPort.postMessage({ id: 0, kinds });
})();
`;

/** A hook that did not settle in time: the worker running it was terminated. */
export class HookTimeout extends Error {}

/** What a hook (or loading the module) ended with, as the worker reported it. */
class HookThrew extends Error {}

interface Reply {
  id: number;
  error?: string;
  kinds?: Record<string, string>;
}

/** tsx's ESM API (its CommonJS build cannot load its ESM half), as a file URL the worker can import. */
function tsxApiUrl(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('tsx/package.json');
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, unknown> }).exports;
  const api = exports['./esm/api'] as { import: { default: string } };
  return pathToFileURL(join(dirname(manifest), api.import.default)).href;
}

const TYPESCRIPT = new Set(['.ts', '.mts', '.cts', '.tsx']);

/**
 * The hook module, loaded and run in a worker thread: a hook that never returns — a synchronous endless
 * loop included, which no timer on fed's own thread could interrupt — is stopped by terminating the
 * worker once `timeoutMs` passed. After a timeout the worker is gone and every later call times out at once.
 */
export class HookWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private nextId = 1;
  private dead: Error | undefined;

  private constructor(
    file: string,
    private readonly timeoutMs: number,
  ) {
    const url = pathToFileURL(file).href;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file: url, tsxApi: TYPESCRIPT.has(extname(file)) ? tsxApiUrl() : undefined, names: HOOK_NAMES },
    });
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the hook's worker exited (code ${code})`)));
    // The worker never keeps fed running, only a call in flight (its timer) does. After the listeners:
    // adding a message listener refs the worker again.
    this.worker.unref();
  }

  /** Load `file` in a new worker; resolves with the type of each hook it exports. */
  static async start(file: string, timeoutMs: number): Promise<{ worker: HookWorker; kinds: Record<string, string> }> {
    const worker = new HookWorker(file, timeoutMs);
    const reply = await worker.await(0);
    return { worker, kinds: reply.kinds ?? {} };
  }

  /** Call hook `name` with `args` (structured-cloned into the worker); rejects when it throws or times out. */
  async call(name: string, args: readonly unknown[]): Promise<void> {
    const id = this.nextId++;
    const reply = this.await(id);
    if (!this.dead) this.worker.postMessage({ id, name, args });
    await reply;
  }

  /** Stop the worker (when fed is done with the hooks, or a hook overran its time). */
  async stop(): Promise<void> {
    this.dead ??= new HookTimeout('the hooks were stopped');
    await this.worker.terminate();
  }

  private await(id: number): Promise<Reply> {
    if (this.dead) return Promise.reject(this.dead);
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        const timeout = new HookTimeout(
          `it did not settle within ${this.timeoutMs} ms; fix the hook or remove importHook`,
        );
        this.dead = timeout;
        void this.worker.terminate();
        reject(timeout);
      }, this.timeoutMs);
      this.pending.set(id, (reply) => {
        clearTimeout(timer);
        if (reply.error === undefined) resolve(reply);
        else reject(new HookThrew(reply.error));
      });
    });
  }

  private settle(reply: Reply): void {
    const settle = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    settle?.(reply);
  }

  private fail(error: Error): void {
    this.dead ??= error;
    for (const [id, settle] of this.pending) settle({ id, error: error.message });
    this.pending.clear();
  }
}
