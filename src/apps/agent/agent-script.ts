import { Script } from 'node:vm';

/**
 * The fed-agent program (bundled as CommonJS into dist/bin/agent/agent.cjs) as a script V8 can be handed
 * compiled code for: Node 20 keeps no compiled code for ES modules, and compiling the bundle was a fifth of
 * a small run's CPU. Node's CommonJS wrapper, with import.meta.url (which the bundle reads as
 * `__fedImportMetaUrl`) added. The executable (bin.ts) runs it; the build (scripts/agent-code-cache.mjs)
 * compiles it once to make the code cache beside it — both through here, so the cache fits the script.
 */
export function agentScript(bundle: string, source: string, cachedData?: Buffer): Script {
  return new Script(`(function (exports, require, module, __filename, __dirname, __fedImportMetaUrl) {${source}\n})`, {
    filename: bundle,
    cachedData,
  });
}

/** The code cache the build made for the bundle whose content hash is `bundleHash`, under this Node. */
export function agentCodeCacheName(bundleHash: string): string {
  return `agent-${bundleHash}-${process.version}-${process.arch}.v8cache`;
}
