/**
 * `node scripts/agent-code-cache.mjs <bundle> <cache file>`: the V8 code cache of the fed-agent bundle
 * (src/apps/agent/agent-script.ts), made by compiling every function of it — without running any — under
 * the V8 flags fed-agent runs with (src/apps/agent/v8-tiering.ts); `--lazy` is back on before the cache is
 * written, so V8 accepts it in a fed-agent process. Run by scripts/bundle.mjs after tsc, from dist/src.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import '../dist/src/apps/agent/v8-tiering.js';
import { agentScript, sealCodeCache } from '../dist/src/apps/agent/agent-script.js';

const [bundle, cacheFile] = process.argv.slice(2);
setFlagsFromString('--no-lazy');
const script = agentScript(bundle, readFileSync(bundle, 'utf8'));
setFlagsFromString('--lazy');
writeFileSync(cacheFile, sealCodeCache(script.createCachedData()));
