import { createHash } from 'node:crypto';
import { Script } from 'node:vm';

/**
 * The fed-agent program (bundled as CommonJS into dist/agent.cjs) as a script V8 can be handed
 * compiled code for: Node 20 keeps no compiled code for ES modules, and compiling the bundle was a fifth of
 * a small run's CPU. Node's CommonJS wrapper, with import.meta.url (which the bundle reads as
 * `__fedImportMetaUrl`) added. The executable (bin.ts) runs it, and leaves the code cache beside it in the
 * build's training run (scripts/code-cache.ts).
 */
export function agentScript(bundle: string, source: string, cachedData?: Buffer): Script {
  return new Script(`(function (exports, require, module, __filename, __dirname, __fedImportMetaUrl) {${source}\n})`, {
    filename: bundle,
    cachedData,
  });
}

/**
 * Set by the build (scripts/code-cache.ts) for one training run of fed-agent: the folder where it
 * leaves, once done, the code it compiled — what a mission runs, a third of the bundle's functions —
 * under the name `agentCodeCacheName` gives it.
 */
export const CODE_CACHE_OUT_ENV = 'FED_AGENT_CODE_CACHE_OUT';

/**
 * The code cache the build made for the bundle whose content hash is `bundleHash`, under this Node and
 * the V8 tiering named `tiering` (fed/v8-tiering): V8 rejects a cache made under other flags.
 */
export function agentCodeCacheName(bundleHash: string, tiering: string): string {
  return `agent-${bundleHash}-${process.version}-${process.platform}-${process.arch}-${tiering}.v8cache`;
}

const DIGEST_BYTES = 32;

/**
 * A code cache as the build stores it: its SHA-256, then the cache. V8 in a release build of Node does
 * not check a cache's own checksum, and a damaged one (a bad disk, a truncated copy of an installation)
 * crashed the agent rather than being rejected; the digest makes damage mean compiling, as without one.
 */
export function sealCodeCache(cache: Buffer): Buffer {
  return Buffer.concat([createHash('sha256').update(cache).digest(), cache]);
}

/** The cache inside what `sealCodeCache` stored, or undefined when it does not match its digest. */
export function openCodeCache(sealed: Buffer): Buffer | undefined {
  if (sealed.length <= DIGEST_BYTES) return undefined;
  const cache = sealed.subarray(DIGEST_BYTES);
  return createHash('sha256').update(cache).digest().equals(sealed.subarray(0, DIGEST_BYTES)) ? cache : undefined;
}
